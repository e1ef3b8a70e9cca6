-- Discovery (issue 12): what the provider reports about a cluster beyond its version (labels,
-- cloud; region and node_count exist since 0000 and are now written from the snapshot too), and
-- the version gates it has not agreed to. The SQL defaults let existing rows (and the tick's raw
-- inserts) take the column; drizzle fills the same values on its own inserts ($defaultFn).
ALTER TABLE `clusters` ADD `labels` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `clusters` ADD `cloud` text;--> statement-breakpoint
ALTER TABLE `clusters` ADD `pending_version_gates` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
-- A pending version gate holds upgrades (VERSION_GATE), so the plan structure revision (0006)
-- follows it as it follows health; labels, cloud, region and nodes do not change a decision.
DROP TRIGGER `plan_structure_clusters_update`;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_clusters_update` AFTER UPDATE ON `clusters` WHEN OLD.`organization_id` IS NOT NEW.`organization_id` OR OLD.`name` IS NOT NEW.`name` OR OLD.`position` IS NOT NEW.`position` OR OLD.`version` IS NOT NEW.`version` OR OLD.`channel` IS NOT NEW.`channel` OR OLD.`available_upgrades` IS NOT NEW.`available_upgrades` OR OLD.`healthy` IS NOT NEW.`healthy` OR OLD.`health_issues` IS NOT NEW.`health_issues` OR OLD.`upgrade_policy` IS NOT NEW.`upgrade_policy` OR OLD.`current_upgrade` IS NOT NEW.`current_upgrade` OR OLD.`upgrade_state` IS NOT NEW.`upgrade_state` OR OLD.`pending_version_gates` IS NOT NEW.`pending_version_gates` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
