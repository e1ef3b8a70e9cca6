-- Labels and selectors (issue 14 item 5): labels operators set in fleetplan beside the provider's
-- (they overlay them; discovery never writes this column), and label selectors on sectors (they
-- add clusters whose policy names no sector), webhooks and hooks (they narrow what applies).
-- An exclusion by selector keeps the selector in `subject` with scope `selector`: no column.
ALTER TABLE `clusters` ADD `fleetplan_labels` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `hooks` ADD `selector` text;--> statement-breakpoint
ALTER TABLE `sectors` ADD `selector` text;--> statement-breakpoint
ALTER TABLE `webhooks` ADD `selector` text;--> statement-breakpoint
-- A sector's selector reads the clusters' labels, so the plan structure revision (0006) now
-- follows both label columns (a cached evaluation must not keep a cluster in its old sector).
DROP TRIGGER `plan_structure_clusters_update`;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_clusters_update` AFTER UPDATE ON `clusters` WHEN OLD.`organization_id` IS NOT NEW.`organization_id` OR OLD.`name` IS NOT NEW.`name` OR OLD.`position` IS NOT NEW.`position` OR OLD.`version` IS NOT NEW.`version` OR OLD.`channel` IS NOT NEW.`channel` OR OLD.`available_upgrades` IS NOT NEW.`available_upgrades` OR OLD.`healthy` IS NOT NEW.`healthy` OR OLD.`health_issues` IS NOT NEW.`health_issues` OR OLD.`upgrade_policy` IS NOT NEW.`upgrade_policy` OR OLD.`current_upgrade` IS NOT NEW.`current_upgrade` OR OLD.`upgrade_state` IS NOT NEW.`upgrade_state` OR OLD.`pending_version_gates` IS NOT NEW.`pending_version_gates` OR OLD.`inhibitors` IS NOT NEW.`inhibitors` OR OLD.`labels` IS NOT NEW.`labels` OR OLD.`fleetplan_labels` IS NOT NEW.`fleetplan_labels` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
