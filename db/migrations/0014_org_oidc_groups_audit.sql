ALTER TABLE `audit_log` ADD `organization_id` integer;--> statement-breakpoint
CREATE INDEX `audit_log_organization_at` ON `audit_log` (`organization_id`,`at`);--> statement-breakpoint
ALTER TABLE `organization_roles` ADD `source` text DEFAULT 'manual' NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `oidc_role_groups` text;--> statement-breakpoint
ALTER TABLE `users` ADD `organizations_only` integer DEFAULT false NOT NULL;--> statement-breakpoint
-- Backfill: the organization of the rows written before audit_log had the column, from what they name.
-- Targets that start with `organization:NAME` (policies, imports, providers, approvals, exclusions):
UPDATE `audit_log` SET `organization_id` = (SELECT o.`id` FROM `organizations` o WHERE `audit_log`.`target` = 'organization:' || o.`name` OR substr(`audit_log`.`target`, 1, length(o.`name`) + 14) = 'organization:' || o.`name` || ' ') WHERE `organization_id` IS NULL AND `target` LIKE 'organization:%';--> statement-breakpoint
-- a policy change's row is written with its revision (same instant, actor and `scope:subject`), which names the organization:
UPDATE `audit_log` SET `organization_id` = (SELECT r.`organization_id` FROM `policy_revisions` r WHERE r.`at` = `audit_log`.`at` AND r.`actor` = `audit_log`.`actor` AND (r.`scope` || ':' || r.`subject`) = `audit_log`.`target` LIMIT 1) WHERE `organization_id` IS NULL AND `action` LIKE 'policy.%';--> statement-breakpoint
-- grants on an organization name it in their values:
UPDATE `audit_log` SET `organization_id` = (SELECT o.`id` FROM `organizations` o WHERE o.`name` = json_extract(coalesce(`audit_log`.`after`, `audit_log`.`before`), '$.organization')) WHERE `organization_id` IS NULL AND `action` LIKE 'user.organization-role.%';--> statement-breakpoint
-- webhooks and hooks belong to an organization (a deleted webhook's row names it in its values):
UPDATE `audit_log` SET `organization_id` = coalesce((SELECT w.`organization_id` FROM `webhooks` w WHERE 'webhook:' || w.`id` = `audit_log`.`target`), (SELECT o.`id` FROM `organizations` o WHERE o.`name` = json_extract(coalesce(`audit_log`.`after`, `audit_log`.`before`), '$.organization'))) WHERE `organization_id` IS NULL AND `action` LIKE 'webhook.%';--> statement-breakpoint
UPDATE `audit_log` SET `organization_id` = (SELECT h.`organization_id` FROM `hooks` h WHERE 'hook:' || h.`id` = `audit_log`.`target`) WHERE `organization_id` IS NULL AND `action` LIKE 'hook.%';--> statement-breakpoint
-- a cluster's rows (`CLUSTER@VERSION`: version gates, acknowledged failures) when only one organization has a cluster of that name:
UPDATE `audit_log` SET `organization_id` = (SELECT min(c.`organization_id`) FROM `clusters` c WHERE c.`name` = substr(`audit_log`.`target`, 1, instr(`audit_log`.`target`, '@') - 1) HAVING count(DISTINCT c.`organization_id`) = 1) WHERE `organization_id` IS NULL AND `action` IN ('cluster.acknowledge-version-gate', 'lifecycle.acknowledge-failure') AND instr(`target`, '@') > 1;
