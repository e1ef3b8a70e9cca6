-- Which clusters' planned columns changed since a revision: the 'cluster_rows' plan revision moves
-- once for every move of the structure revision (0006, 0015) that is a cluster's own planned
-- columns changing while its organization, name and position stay, and stamps the row with it.
-- The stored fleet's cache (server/services/stored-fleet-evaluation.ts) then re-reads only the
-- rows past the revision it loaded when both revisions moved by the same count, and loads the
-- whole fleet otherwise. The column list is the structure trigger's (a column left out here only
-- makes the cache load the whole fleet; one added beyond it would let both counts match when
-- something else moved): tests/integration/stored-fleet-cache.test.ts compares them.
ALTER TABLE `clusters` ADD `changed_at_revision` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `clusters_changed_at_revision` ON `clusters` (`changed_at_revision`);--> statement-breakpoint
INSERT INTO `plan_revisions` (`scope`, `revision`) VALUES ('cluster_rows', 0);--> statement-breakpoint
CREATE TRIGGER `plan_cluster_rows_update` AFTER UPDATE ON `clusters` WHEN OLD.`organization_id` IS NEW.`organization_id` AND OLD.`name` IS NEW.`name` AND OLD.`position` IS NEW.`position` AND (OLD.`version` IS NOT NEW.`version` OR OLD.`channel` IS NOT NEW.`channel` OR OLD.`available_upgrades` IS NOT NEW.`available_upgrades` OR OLD.`healthy` IS NOT NEW.`healthy` OR OLD.`health_issues` IS NOT NEW.`health_issues` OR OLD.`upgrade_policy` IS NOT NEW.`upgrade_policy` OR OLD.`current_upgrade` IS NOT NEW.`current_upgrade` OR OLD.`upgrade_state` IS NOT NEW.`upgrade_state` OR OLD.`pending_version_gates` IS NOT NEW.`pending_version_gates` OR OLD.`inhibitors` IS NOT NEW.`inhibitors` OR OLD.`labels` IS NOT NEW.`labels` OR OLD.`fleetplan_labels` IS NOT NEW.`fleetplan_labels`) BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'cluster_rows'; UPDATE `clusters` SET `changed_at_revision` = (SELECT `revision` FROM `plan_revisions` WHERE `scope` = 'cluster_rows') WHERE `id` = NEW.`id`; END;
