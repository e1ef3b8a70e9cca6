-- Several organizations per instance (issue 12 item 1): blocked versions of the whole instance,
-- a user's role per organization, the organization a user last chose, webhooks that belong to an
-- organization, the organization of each decision and action (cluster names are unique per
-- organization only), and an organization's own provider (a kind and a credentials reference only).
CREATE TABLE `instance_blocked_versions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`pattern` text NOT NULL,
	`reason` text DEFAULT '' NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `instance_blocked_versions_pattern_unique` ON `instance_blocked_versions` (`pattern`);--> statement-breakpoint
CREATE TABLE `organization_roles` (
	`user_id` integer NOT NULL,
	`organization_id` integer NOT NULL,
	`role` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `organization_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `action_intents` ADD `organization_id` integer REFERENCES organizations(id) ON DELETE cascade;--> statement-breakpoint
ALTER TABLE `decisions` ADD `organization_id` integer REFERENCES organizations(id) ON DELETE cascade;--> statement-breakpoint
ALTER TABLE `organizations` ADD `provider_kind` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `provider_credentials_ref` text;--> statement-breakpoint
ALTER TABLE `users` ADD `selected_organization_id` integer REFERENCES organizations(id) ON DELETE set null;--> statement-breakpoint
ALTER TABLE `webhooks` ADD `organization_id` integer REFERENCES organizations(id) ON DELETE cascade;--> statement-breakpoint
-- the webhooks, decisions and actions made before belonged to the one organization there was
UPDATE `webhooks` SET `organization_id` = (SELECT min(`id`) FROM `organizations`);--> statement-breakpoint
UPDATE `decisions` SET `organization_id` = (SELECT min(`id`) FROM `organizations`);--> statement-breakpoint
UPDATE `action_intents` SET `organization_id` = (SELECT min(`id`) FROM `organizations`);--> statement-breakpoint
-- the instance's blocked versions are part of every organization's plan input (0006's revision)
CREATE TRIGGER `plan_structure_instance_blocked_versions_insert` AFTER INSERT ON `instance_blocked_versions` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_instance_blocked_versions_delete` AFTER DELETE ON `instance_blocked_versions` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_instance_blocked_versions_update` AFTER UPDATE ON `instance_blocked_versions` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;