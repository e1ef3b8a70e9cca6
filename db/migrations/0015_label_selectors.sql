-- Labels and selectors (issue 14 item 5): labels operators set in fleetplan beside the provider's
-- (they overlay them; discovery never writes this column), and label selectors on sectors (they
-- add clusters whose policy names no sector), webhooks and hooks (they narrow what applies).
-- An exclusion by selector keeps the selector in `subject` with scope `selector`: no column.
ALTER TABLE `clusters` ADD `fleetplan_labels` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `hooks` ADD `selector` text;--> statement-breakpoint
ALTER TABLE `sectors` ADD `selector` text;--> statement-breakpoint
ALTER TABLE `webhooks` ADD `selector` text;
