CREATE TABLE `upgrade_lifecycle_transitions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`lifecycle_id` integer NOT NULL,
	`at` integer NOT NULL,
	`from_state` text,
	`to_state` text NOT NULL,
	`reason` text,
	`message` text NOT NULL,
	`actor` text NOT NULL,
	`tick_id` integer,
	FOREIGN KEY (`lifecycle_id`) REFERENCES `upgrade_lifecycles`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `upgrade_lifecycle_transitions_lifecycle` ON `upgrade_lifecycle_transitions` (`lifecycle_id`,`at`);--> statement-breakpoint
CREATE INDEX `upgrade_lifecycle_transitions_at` ON `upgrade_lifecycle_transitions` (`at`);--> statement-breakpoint
CREATE TABLE `upgrade_lifecycles` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`cluster_id` integer NOT NULL,
	`cluster_name` text NOT NULL,
	`sector` text,
	`from_version` text NOT NULL,
	`to_version` text NOT NULL,
	`slot` integer NOT NULL,
	`state` text NOT NULL,
	`reason` text,
	`message` text,
	`halts_on_failure` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`notice_at` integer,
	`start_requested_at` integer,
	`start_confirmed_at` integer,
	`running_at` integer,
	`provider_done_at` integer,
	`finished_at` integer,
	`acknowledged_by` text,
	`acknowledged_at` integer,
	`acknowledge_comment` text,
	FOREIGN KEY (`cluster_id`) REFERENCES `clusters`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `upgrade_lifecycles_attempt` ON `upgrade_lifecycles` (`cluster_id`,`to_version`,`slot`);--> statement-breakpoint
CREATE INDEX `upgrade_lifecycles_state` ON `upgrade_lifecycles` (`state`);--> statement-breakpoint
CREATE INDEX `upgrade_lifecycles_cluster` ON `upgrade_lifecycles` (`cluster_id`,`created_at`);