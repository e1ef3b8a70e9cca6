-- The plan input's configuration revision: like 'structure' (0006) but bumped only by what people
-- configure — policies, sectors, labels, blocked versions, approvals, organizations, update graphs —
-- never by what the fleet reports (versions, offers, health, upgrades). A forecast computed on the
-- same configuration may be shown while a newer one is computed (forecast-service.ts); one computed
-- before a policy edit may not. Update graphs move 'structure' too: routes are planned over them.
INSERT INTO `plan_revisions` (`scope`, `revision`) VALUES ('configuration', 0);
--> statement-breakpoint
CREATE TRIGGER `plan_configuration_clusters_insert` AFTER INSERT ON `clusters` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'configuration'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_configuration_clusters_delete` AFTER DELETE ON `clusters` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'configuration'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_configuration_clusters_update` AFTER UPDATE ON `clusters` WHEN OLD.`organization_id` IS NOT NEW.`organization_id` OR OLD.`name` IS NOT NEW.`name` OR OLD.`position` IS NOT NEW.`position` OR OLD.`upgrade_policy` IS NOT NEW.`upgrade_policy` OR OLD.`sector` IS NOT NEW.`sector` OR OLD.`labels` IS NOT NEW.`labels` OR OLD.`fleetplan_labels` IS NOT NEW.`fleetplan_labels` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'configuration'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_configuration_sectors_insert` AFTER INSERT ON `sectors` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'configuration'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_configuration_sectors_update` AFTER UPDATE ON `sectors` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'configuration'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_configuration_sectors_delete` AFTER DELETE ON `sectors` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'configuration'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_configuration_blocked_versions_insert` AFTER INSERT ON `blocked_versions` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'configuration'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_configuration_blocked_versions_update` AFTER UPDATE ON `blocked_versions` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'configuration'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_configuration_blocked_versions_delete` AFTER DELETE ON `blocked_versions` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'configuration'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_configuration_instance_blocked_versions_insert` AFTER INSERT ON `instance_blocked_versions` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'configuration'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_configuration_instance_blocked_versions_update` AFTER UPDATE ON `instance_blocked_versions` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'configuration'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_configuration_instance_blocked_versions_delete` AFTER DELETE ON `instance_blocked_versions` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'configuration'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_configuration_approvals_insert` AFTER INSERT ON `approvals` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'configuration'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_configuration_approvals_update` AFTER UPDATE ON `approvals` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'configuration'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_configuration_approvals_delete` AFTER DELETE ON `approvals` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'configuration'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_configuration_organizations_insert` AFTER INSERT ON `organizations` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'configuration'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_configuration_organizations_update` AFTER UPDATE ON `organizations` WHEN OLD.`name` IS NOT NEW.`name` OR OLD.`allowed_workloads` IS NOT NEW.`allowed_workloads` OR OLD.`allowed_mutexes` IS NOT NEW.`allowed_mutexes` OR OLD.`frozen` IS NOT NEW.`frozen` OR OLD.`frozen_reason` IS NOT NEW.`frozen_reason` OR OLD.`target_version` IS NOT NEW.`target_version` OR OLD.`max_version` IS NOT NEW.`max_version` OR OLD.`revision` IS NOT NEW.`revision` OR OLD.`provider_kind` IS NOT NEW.`provider_kind` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'configuration'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_configuration_organizations_delete` AFTER DELETE ON `organizations` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'configuration'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_configuration_update_graphs_insert` AFTER INSERT ON `update_graphs` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'configuration'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_configuration_update_graphs_update` AFTER UPDATE ON `update_graphs` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'configuration'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_configuration_update_graphs_delete` AFTER DELETE ON `update_graphs` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'configuration'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_update_graphs_insert` AFTER INSERT ON `update_graphs` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_update_graphs_update` AFTER UPDATE ON `update_graphs` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
--> statement-breakpoint
CREATE TRIGGER `plan_structure_update_graphs_delete` AFTER DELETE ON `update_graphs` BEGIN UPDATE `plan_revisions` SET `revision` = `revision` + 1 WHERE `scope` = 'structure'; END;
