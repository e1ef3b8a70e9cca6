-- Approval gates and a start gate per sector (issue 14 item 3): a sector's gates (before it, and
-- after it for the sectors that follow) and its notBefore; the approvals given, one row per
-- (organization, sector, version, kind), revocable. 0012: 0011 is another branch's.
CREATE TABLE `approvals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organization_id` integer NOT NULL,
	`sector` text NOT NULL,
	`version` text NOT NULL,
	`kind` text NOT NULL,
	`approved_by` text NOT NULL,
	`approved_at` integer NOT NULL,
	`reason` text DEFAULT '' NOT NULL,
	`revoked_at` integer,
	`revoked_by` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `approvals_gate` ON `approvals` (`organization_id`,`sector`,`version`,`kind`);--> statement-breakpoint
ALTER TABLE `sectors` ADD `approval_before` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `sectors` ADD `approval_after` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `sectors` ADD `not_before` text;--> statement-breakpoint
-- approvals change decisions: the plan structure revision (0006) follows them
CREATE TRIGGER `plan_structure_approvals_insert` AFTER INSERT ON `approvals` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_approvals_update` AFTER UPDATE ON `approvals` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_approvals_delete` AFTER DELETE ON `approvals` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
