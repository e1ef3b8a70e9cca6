CREATE TABLE `sign_in_throttle` (
	`key` text PRIMARY KEY NOT NULL,
	`failures` integer NOT NULL,
	`last_failure_at` integer NOT NULL,
	`blocked_until` integer
);
--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `expires_at` integer;--> statement-breakpoint
ALTER TABLE `users` ADD `must_change_password` integer DEFAULT false NOT NULL;--> statement-breakpoint
-- tokens made before expiry existed get the default lifetime from now (90 days), not eternity
UPDATE `api_tokens` SET `expires_at` = (CAST(strftime('%s', 'now') AS INTEGER) * 1000) + 7776000000 WHERE `expires_at` IS NULL AND `revoked_at` IS NULL;
