-- The plan's structure revision (db/schema.ts planRevisions; SQLite's migration 0006 and the ones
-- that redefined its triggers): every writer of the plan's input bumps it, on any connection or
-- process, through these triggers. Same triggers, same names and same column lists as SQLite's.
INSERT INTO "plan_revisions" ("scope", "revision") VALUES ('structure', 0);
--> statement-breakpoint
CREATE FUNCTION "plan_structure_bump"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "plan_revisions" SET "revision" = "revision" + 1 WHERE "scope" = 'structure';
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "plan_structure_approvals_insert" AFTER INSERT ON "approvals" FOR EACH ROW EXECUTE FUNCTION "plan_structure_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_structure_approvals_delete" AFTER DELETE ON "approvals" FOR EACH ROW EXECUTE FUNCTION "plan_structure_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_structure_approvals_update" AFTER UPDATE ON "approvals" FOR EACH ROW EXECUTE FUNCTION "plan_structure_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_structure_blocked_versions_insert" AFTER INSERT ON "blocked_versions" FOR EACH ROW EXECUTE FUNCTION "plan_structure_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_structure_blocked_versions_delete" AFTER DELETE ON "blocked_versions" FOR EACH ROW EXECUTE FUNCTION "plan_structure_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_structure_blocked_versions_update" AFTER UPDATE ON "blocked_versions" FOR EACH ROW EXECUTE FUNCTION "plan_structure_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_structure_clusters_insert" AFTER INSERT ON "clusters" FOR EACH ROW EXECUTE FUNCTION "plan_structure_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_structure_clusters_delete" AFTER DELETE ON "clusters" FOR EACH ROW EXECUTE FUNCTION "plan_structure_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_structure_clusters_update" AFTER UPDATE ON "clusters" FOR EACH ROW WHEN (OLD."organization_id" IS DISTINCT FROM NEW."organization_id" OR OLD."name" IS DISTINCT FROM NEW."name" OR OLD."position" IS DISTINCT FROM NEW."position" OR OLD."version" IS DISTINCT FROM NEW."version" OR OLD."channel" IS DISTINCT FROM NEW."channel" OR OLD."available_upgrades" IS DISTINCT FROM NEW."available_upgrades" OR OLD."healthy" IS DISTINCT FROM NEW."healthy" OR OLD."health_issues" IS DISTINCT FROM NEW."health_issues" OR OLD."upgrade_policy" IS DISTINCT FROM NEW."upgrade_policy" OR OLD."current_upgrade" IS DISTINCT FROM NEW."current_upgrade" OR OLD."upgrade_state" IS DISTINCT FROM NEW."upgrade_state" OR OLD."pending_version_gates" IS DISTINCT FROM NEW."pending_version_gates" OR OLD."inhibitors" IS DISTINCT FROM NEW."inhibitors" OR OLD."labels" IS DISTINCT FROM NEW."labels" OR OLD."fleetplan_labels" IS DISTINCT FROM NEW."fleetplan_labels") EXECUTE FUNCTION "plan_structure_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_structure_instance_blocked_versions_insert" AFTER INSERT ON "instance_blocked_versions" FOR EACH ROW EXECUTE FUNCTION "plan_structure_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_structure_instance_blocked_versions_delete" AFTER DELETE ON "instance_blocked_versions" FOR EACH ROW EXECUTE FUNCTION "plan_structure_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_structure_instance_blocked_versions_update" AFTER UPDATE ON "instance_blocked_versions" FOR EACH ROW EXECUTE FUNCTION "plan_structure_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_structure_organizations_insert" AFTER INSERT ON "organizations" FOR EACH ROW EXECUTE FUNCTION "plan_structure_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_structure_organizations_delete" AFTER DELETE ON "organizations" FOR EACH ROW EXECUTE FUNCTION "plan_structure_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_structure_organizations_update" AFTER UPDATE ON "organizations" FOR EACH ROW WHEN (OLD."name" IS DISTINCT FROM NEW."name" OR OLD."allowed_workloads" IS DISTINCT FROM NEW."allowed_workloads" OR OLD."allowed_mutexes" IS DISTINCT FROM NEW."allowed_mutexes" OR OLD."target_version" IS DISTINCT FROM NEW."target_version" OR OLD."max_version" IS DISTINCT FROM NEW."max_version") EXECUTE FUNCTION "plan_structure_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_structure_sectors_insert" AFTER INSERT ON "sectors" FOR EACH ROW EXECUTE FUNCTION "plan_structure_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_structure_sectors_delete" AFTER DELETE ON "sectors" FOR EACH ROW EXECUTE FUNCTION "plan_structure_bump"();
--> statement-breakpoint
CREATE TRIGGER "plan_structure_sectors_update" AFTER UPDATE ON "sectors" FOR EACH ROW EXECUTE FUNCTION "plan_structure_bump"();
