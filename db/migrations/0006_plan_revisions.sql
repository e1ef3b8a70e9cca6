-- The plan input's structure revision (db/schema.ts planRevisions): every change of what it is built from bumps it,
-- whoever writes. Unchanged values written again (a tick's update of a cluster row) do not.
CREATE TABLE `plan_revisions` (
	`scope` text PRIMARY KEY NOT NULL,
	`revision` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `plan_revisions` (`scope`, `revision`) VALUES ('structure', 0);
--> statement-breakpoint
CREATE TRIGGER `plan_structure_clusters_insert` AFTER INSERT ON `clusters` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_clusters_delete` AFTER DELETE ON `clusters` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_clusters_update` AFTER UPDATE ON `clusters` WHEN OLD.`organization_id` IS NOT NEW.`organization_id` OR OLD.`name` IS NOT NEW.`name` OR OLD.`position` IS NOT NEW.`position` OR OLD.`version` IS NOT NEW.`version` OR OLD.`channel` IS NOT NEW.`channel` OR OLD.`available_upgrades` IS NOT NEW.`available_upgrades` OR OLD.`healthy` IS NOT NEW.`healthy` OR OLD.`health_issues` IS NOT NEW.`health_issues` OR OLD.`upgrade_policy` IS NOT NEW.`upgrade_policy` OR OLD.`current_upgrade` IS NOT NEW.`current_upgrade` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_sectors_insert` AFTER INSERT ON `sectors` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_sectors_delete` AFTER DELETE ON `sectors` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_sectors_update` AFTER UPDATE ON `sectors` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_blocked_versions_insert` AFTER INSERT ON `blocked_versions` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_blocked_versions_delete` AFTER DELETE ON `blocked_versions` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_blocked_versions_update` AFTER UPDATE ON `blocked_versions` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_organizations_insert` AFTER INSERT ON `organizations` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_organizations_delete` AFTER DELETE ON `organizations` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_organizations_update` AFTER UPDATE ON `organizations` WHEN OLD.`name` IS NOT NEW.`name` OR OLD.`allowed_workloads` IS NOT NEW.`allowed_workloads` OR OLD.`allowed_mutexes` IS NOT NEW.`allowed_mutexes` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
