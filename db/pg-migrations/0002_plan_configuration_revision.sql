-- The plan's configuration revision (SQLite's migration 0020_forecast_configuration_revision): bumped
-- only by what people configure, never by what the fleet reports; the forecast may show a result
-- computed before an observed change, never one from before a configuration change. Update graphs
-- move the structure revision too. Same triggers, names and column lists as SQLite's.
INSERT INTO "plan_revisions" ("scope", "revision") VALUES ('configuration', 0);
--> statement-breakpoint
CREATE FUNCTION "plan_configuration_bump"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "plan_revisions" SET "revision" = "revision" + 1 WHERE "scope" = 'configuration';
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "plan_configuration_clusters_insert" AFTER INSERT ON "clusters" FOR EACH ROW EXECUTE FUNCTION "plan_configuration_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_configuration_clusters_delete" AFTER DELETE ON "clusters" FOR EACH ROW EXECUTE FUNCTION "plan_configuration_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_configuration_clusters_update" AFTER UPDATE ON "clusters" FOR EACH ROW WHEN (OLD."organization_id" IS DISTINCT FROM NEW."organization_id" OR OLD."name" IS DISTINCT FROM NEW."name" OR OLD."position" IS DISTINCT FROM NEW."position" OR OLD."upgrade_policy" IS DISTINCT FROM NEW."upgrade_policy" OR OLD."sector" IS DISTINCT FROM NEW."sector" OR OLD."labels" IS DISTINCT FROM NEW."labels" OR OLD."fleetplan_labels" IS DISTINCT FROM NEW."fleetplan_labels") EXECUTE FUNCTION "plan_configuration_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_configuration_sectors_insert" AFTER INSERT ON "sectors" FOR EACH ROW EXECUTE FUNCTION "plan_configuration_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_configuration_sectors_update" AFTER UPDATE ON "sectors" FOR EACH ROW EXECUTE FUNCTION "plan_configuration_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_configuration_sectors_delete" AFTER DELETE ON "sectors" FOR EACH ROW EXECUTE FUNCTION "plan_configuration_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_configuration_blocked_versions_insert" AFTER INSERT ON "blocked_versions" FOR EACH ROW EXECUTE FUNCTION "plan_configuration_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_configuration_blocked_versions_update" AFTER UPDATE ON "blocked_versions" FOR EACH ROW EXECUTE FUNCTION "plan_configuration_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_configuration_blocked_versions_delete" AFTER DELETE ON "blocked_versions" FOR EACH ROW EXECUTE FUNCTION "plan_configuration_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_configuration_instance_blocked_versions_insert" AFTER INSERT ON "instance_blocked_versions" FOR EACH ROW EXECUTE FUNCTION "plan_configuration_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_configuration_instance_blocked_versions_update" AFTER UPDATE ON "instance_blocked_versions" FOR EACH ROW EXECUTE FUNCTION "plan_configuration_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_configuration_instance_blocked_versions_delete" AFTER DELETE ON "instance_blocked_versions" FOR EACH ROW EXECUTE FUNCTION "plan_configuration_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_configuration_approvals_insert" AFTER INSERT ON "approvals" FOR EACH ROW EXECUTE FUNCTION "plan_configuration_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_configuration_approvals_update" AFTER UPDATE ON "approvals" FOR EACH ROW EXECUTE FUNCTION "plan_configuration_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_configuration_approvals_delete" AFTER DELETE ON "approvals" FOR EACH ROW EXECUTE FUNCTION "plan_configuration_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_configuration_organizations_insert" AFTER INSERT ON "organizations" FOR EACH ROW EXECUTE FUNCTION "plan_configuration_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_configuration_organizations_update" AFTER UPDATE ON "organizations" FOR EACH ROW WHEN (OLD."name" IS DISTINCT FROM NEW."name" OR OLD."allowed_workloads" IS DISTINCT FROM NEW."allowed_workloads" OR OLD."allowed_mutexes" IS DISTINCT FROM NEW."allowed_mutexes" OR OLD."frozen" IS DISTINCT FROM NEW."frozen" OR OLD."frozen_reason" IS DISTINCT FROM NEW."frozen_reason" OR OLD."target_version" IS DISTINCT FROM NEW."target_version" OR OLD."max_version" IS DISTINCT FROM NEW."max_version" OR OLD."revision" IS DISTINCT FROM NEW."revision" OR OLD."provider_kind" IS DISTINCT FROM NEW."provider_kind") EXECUTE FUNCTION "plan_configuration_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_configuration_organizations_delete" AFTER DELETE ON "organizations" FOR EACH ROW EXECUTE FUNCTION "plan_configuration_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_configuration_update_graphs_insert" AFTER INSERT ON "update_graphs" FOR EACH ROW EXECUTE FUNCTION "plan_configuration_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_configuration_update_graphs_update" AFTER UPDATE ON "update_graphs" FOR EACH ROW EXECUTE FUNCTION "plan_configuration_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_configuration_update_graphs_delete" AFTER DELETE ON "update_graphs" FOR EACH ROW EXECUTE FUNCTION "plan_configuration_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_structure_update_graphs_insert" AFTER INSERT ON "update_graphs" FOR EACH ROW EXECUTE FUNCTION "plan_structure_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_structure_update_graphs_update" AFTER UPDATE ON "update_graphs" FOR EACH ROW EXECUTE FUNCTION "plan_structure_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_structure_update_graphs_delete" AFTER DELETE ON "update_graphs" FOR EACH ROW EXECUTE FUNCTION "plan_structure_bump"();
