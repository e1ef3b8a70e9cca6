-- Upgrade inhibitors (issue 14, item 7): the cluster's installed operators and removed-API use, as
-- the Kubernetes provider reads them (OLM ClusterServiceVersions, APIRequestCount); null = not
-- reported. They hold some upgrades (OPERATOR_INCOMPATIBLE, REMOVED_API_IN_USE), so the plan
-- structure revision (0006) follows them as it follows pending version gates.
ALTER TABLE `clusters` ADD `inhibitors` text;--> statement-breakpoint
DROP TRIGGER `plan_structure_clusters_update`;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_clusters_update` AFTER UPDATE ON `clusters` WHEN OLD.`organization_id` IS NOT NEW.`organization_id` OR OLD.`name` IS NOT NEW.`name` OR OLD.`position` IS NOT NEW.`position` OR OLD.`version` IS NOT NEW.`version` OR OLD.`channel` IS NOT NEW.`channel` OR OLD.`available_upgrades` IS NOT NEW.`available_upgrades` OR OLD.`healthy` IS NOT NEW.`healthy` OR OLD.`health_issues` IS NOT NEW.`health_issues` OR OLD.`upgrade_policy` IS NOT NEW.`upgrade_policy` OR OLD.`current_upgrade` IS NOT NEW.`current_upgrade` OR OLD.`upgrade_state` IS NOT NEW.`upgrade_state` OR OLD.`pending_version_gates` IS NOT NEW.`pending_version_gates` OR OLD.`inhibitors` IS NOT NEW.`inhibitors` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
