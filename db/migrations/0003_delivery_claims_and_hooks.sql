CREATE TABLE `hook_calls` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`hook_id` integer NOT NULL,
	`lifecycle_id` text NOT NULL,
	`stage` text NOT NULL,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`reason` text,
	`answer_status_code` integer,
	`answer` text,
	`requested_at` integer NOT NULL,
	`answered_at` integer,
	`claimed_by` text,
	`claimed_until` integer,
	FOREIGN KEY (`hook_id`) REFERENCES `hooks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `hook_calls_lifecycle_stage_hook` ON `hook_calls` (`lifecycle_id`,`stage`,`hook_id`);--> statement-breakpoint
CREATE INDEX `hook_calls_status` ON `hook_calls` (`status`);--> statement-breakpoint
CREATE INDEX `hook_calls_hook` ON `hook_calls` (`hook_id`,`id`);--> statement-breakpoint
CREATE TABLE `hooks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organization_id` integer NOT NULL,
	`sector` text,
	`stage` text NOT NULL,
	`name` text NOT NULL,
	`url` text NOT NULL,
	`secret` text NOT NULL,
	`timeout_seconds` integer DEFAULT 300 NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `hooks_org_stage` ON `hooks` (`organization_id`,`stage`);--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `claimed_by` text;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `claimed_until` integer;