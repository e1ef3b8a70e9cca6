CREATE TABLE `action_intents` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`idempotency_key` text NOT NULL,
	`tick_id` integer,
	`kind` text NOT NULL,
	`cluster_name` text NOT NULL,
	`version` text NOT NULL,
	`next_run` integer,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`error` text,
	`created_at` integer NOT NULL,
	`done_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `action_intents_idempotency_key_unique` ON `action_intents` (`idempotency_key`);--> statement-breakpoint
CREATE INDEX `action_intents_status` ON `action_intents` (`status`);--> statement-breakpoint
CREATE TABLE `api_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`user_id` integer NOT NULL,
	`token_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`scope` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_token_hash_unique` ON `api_tokens` (`token_hash`);--> statement-breakpoint
CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`actor` text NOT NULL,
	`action` text NOT NULL,
	`target` text NOT NULL,
	`before` text,
	`after` text
);
--> statement-breakpoint
CREATE INDEX `audit_log_at` ON `audit_log` (`at`);--> statement-breakpoint
CREATE TABLE `blocked_versions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organization_id` integer NOT NULL,
	`pattern` text NOT NULL,
	`reason` text DEFAULT '' NOT NULL,
	`created_by` text DEFAULT 'system' NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `blocked_versions_org_pattern` ON `blocked_versions` (`organization_id`,`pattern`);--> statement-breakpoint
CREATE TABLE `cluster_upgrades` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`cluster_id` integer NOT NULL,
	`from_version` text NOT NULL,
	`to_version` text NOT NULL,
	`state` text NOT NULL,
	`scheduled_for` integer,
	`started_at` integer,
	`completed_at` integer,
	`message` text,
	FOREIGN KEY (`cluster_id`) REFERENCES `clusters`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `cluster_upgrades_cluster` ON `cluster_upgrades` (`cluster_id`,`started_at`);--> statement-breakpoint
CREATE TABLE `cluster_workloads` (
	`cluster_id` integer NOT NULL,
	`workload` text NOT NULL,
	PRIMARY KEY(`cluster_id`, `workload`),
	FOREIGN KEY (`cluster_id`) REFERENCES `clusters`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `cluster_workloads_workload` ON `cluster_workloads` (`workload`);--> statement-breakpoint
CREATE TABLE `clusters` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organization_id` integer NOT NULL,
	`name` text NOT NULL,
	`external_id` text NOT NULL,
	`provider` text DEFAULT 'simulator' NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	`version` text NOT NULL,
	`channel` text NOT NULL,
	`region` text DEFAULT '' NOT NULL,
	`node_count` integer DEFAULT 3 NOT NULL,
	`available_upgrades` text NOT NULL,
	`healthy` integer DEFAULT true NOT NULL,
	`health_issues` text NOT NULL,
	`upgrade_policy` text,
	`sector` text,
	`upgrade_state` text DEFAULT 'idle' NOT NULL,
	`current_upgrade` text,
	`policy_revision` integer DEFAULT 1 NOT NULL,
	`last_decision_action` text,
	`last_decision_reason` text,
	`last_decision_message` text,
	`last_decision_version` text,
	`next_run` integer,
	`observed_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `clusters_org_name` ON `clusters` (`organization_id`,`name`);--> statement-breakpoint
CREATE INDEX `clusters_sector` ON `clusters` (`sector`);--> statement-breakpoint
CREATE INDEX `clusters_version` ON `clusters` (`version`);--> statement-breakpoint
CREATE INDEX `clusters_state` ON `clusters` (`upgrade_state`);--> statement-breakpoint
CREATE TABLE `decisions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tick_id` integer,
	`at` integer NOT NULL,
	`cluster_name` text NOT NULL,
	`action` text NOT NULL,
	`version` text,
	`reason` text,
	`message` text
);
--> statement-breakpoint
CREATE INDEX `decisions_at` ON `decisions` (`at`);--> statement-breakpoint
CREATE INDEX `decisions_cluster` ON `decisions` (`cluster_name`,`at`);--> statement-breakpoint
CREATE TABLE `maintenance_exclusions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organization_id` integer NOT NULL,
	`scope` text NOT NULL,
	`subject` text,
	`starts_at` integer NOT NULL,
	`ends_at` integer NOT NULL,
	`reason` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `organizations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`allowed_workloads` text,
	`allowed_mutexes` text,
	`frozen` integer DEFAULT false NOT NULL,
	`frozen_reason` text,
	`soak_check_in` integer,
	`revision` integer DEFAULT 1 NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `organizations_name_unique` ON `organizations` (`name`);--> statement-breakpoint
CREATE TABLE `policy_revisions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organization_id` integer NOT NULL,
	`scope` text NOT NULL,
	`subject` text NOT NULL,
	`revision` integer NOT NULL,
	`actor` text NOT NULL,
	`at` integer NOT NULL,
	`summary` text NOT NULL,
	`before` text,
	`after` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `policy_revisions_subject` ON `policy_revisions` (`organization_id`,`scope`,`subject`,`revision`);--> statement-breakpoint
CREATE TABLE `scheduler_leases` (
	`name` text PRIMARY KEY NOT NULL,
	`holder` text NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `scheduler_ticks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer,
	`status` text NOT NULL,
	`dry_run` integer DEFAULT false NOT NULL,
	`holder` text NOT NULL,
	`summary` text,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `scheduler_ticks_started` ON `scheduler_ticks` (`started_at`);--> statement-breakpoint
CREATE TABLE `sectors` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organization_id` integer NOT NULL,
	`name` text NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	`max_parallel_upgrades` text,
	`dependencies` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sectors_org_name` ON `sectors` (`organization_id`,`name`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`csrf_token` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `soak_samples` (
	`organization_id` integer NOT NULL,
	`at` integer NOT NULL,
	`version` text NOT NULL,
	`workload` text NOT NULL,
	`soak_days` real NOT NULL,
	`reporting_count` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `soak_samples_lookup` ON `soak_samples` (`organization_id`,`version`,`workload`,`at`);--> statement-breakpoint
CREATE TABLE `update_graphs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`channel` text,
	`architecture` text DEFAULT 'amd64' NOT NULL,
	`captured_at` integer,
	`source` text DEFAULT '' NOT NULL,
	`node_count` integer NOT NULL,
	`edge_count` integer NOT NULL,
	`document` text NOT NULL,
	`imported_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `update_graphs_name_unique` ON `update_graphs` (`name`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`username` text NOT NULL,
	`password_hash` text NOT NULL,
	`role` text NOT NULL,
	`disabled` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_username_unique` ON `users` (`username`);--> statement-breakpoint
CREATE TABLE `version_soak` (
	`organization_id` integer NOT NULL,
	`version` text NOT NULL,
	`workload` text NOT NULL,
	`soak_days` real DEFAULT 0 NOT NULL,
	`reporting` text NOT NULL,
	`first_seen_at` integer NOT NULL,
	PRIMARY KEY(`organization_id`, `version`, `workload`),
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`webhook_id` integer NOT NULL,
	`event` text NOT NULL,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`last_status_code` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_status` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`url` text NOT NULL,
	`secret` text NOT NULL,
	`events` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL
);
