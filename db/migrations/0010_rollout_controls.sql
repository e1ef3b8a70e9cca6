-- Rollout controls (issue 14): where upgrades stop (a target version and a cap, per organization
-- and per sector; a cluster policy carries its own in its JSON) and a sector's limit on clusters
-- upgrading at once whatever their mutexes. Null: none, as before.
ALTER TABLE `organizations` ADD `target_version` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `max_version` text;--> statement-breakpoint
ALTER TABLE `sectors` ADD `max_concurrent_upgrades` text;--> statement-breakpoint
ALTER TABLE `sectors` ADD `target_version` text;--> statement-breakpoint
ALTER TABLE `sectors` ADD `max_version` text;--> statement-breakpoint
-- the organization's bounds change decisions: the plan structure revision (0006) follows them
DROP TRIGGER `plan_structure_organizations_update`;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_organizations_update` AFTER UPDATE ON `organizations` WHEN OLD.`name` IS NOT NEW.`name` OR OLD.`allowed_workloads` IS NOT NEW.`allowed_workloads` OR OLD.`allowed_mutexes` IS NOT NEW.`allowed_mutexes` OR OLD.`target_version` IS NOT NEW.`target_version` OR OLD.`max_version` IS NOT NEW.`max_version` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
