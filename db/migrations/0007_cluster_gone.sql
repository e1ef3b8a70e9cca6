-- A cluster the provider stops reporting is marked `gone` (upgrade_state), kept with its history and
-- left out of the plan input; it comes back when the provider reports it again. The plan structure
-- revision (0006) follows upgrade_state too, so views drop and regain the cluster at once.
DROP TRIGGER `plan_structure_clusters_update`;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_clusters_update` AFTER UPDATE ON `clusters` WHEN OLD.`organization_id` IS NOT NEW.`organization_id` OR OLD.`name` IS NOT NEW.`name` OR OLD.`position` IS NOT NEW.`position` OR OLD.`version` IS NOT NEW.`version` OR OLD.`channel` IS NOT NEW.`channel` OR OLD.`available_upgrades` IS NOT NEW.`available_upgrades` OR OLD.`healthy` IS NOT NEW.`healthy` OR OLD.`health_issues` IS NOT NEW.`health_issues` OR OLD.`upgrade_policy` IS NOT NEW.`upgrade_policy` OR OLD.`current_upgrade` IS NOT NEW.`current_upgrade` OR OLD.`upgrade_state` IS NOT NEW.`upgrade_state` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
