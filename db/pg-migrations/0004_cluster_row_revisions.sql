-- The 'cluster_rows' plan revision (SQLite's migration 0022_cluster_row_revisions): it moves once
-- for every structure move that is a cluster's own planned columns changing (its organization,
-- name and position staying) and stamps the row with it, so the stored fleet's cache re-reads only
-- the rows past the revision it loaded. Same trigger name and column list as SQLite's.
ALTER TABLE "clusters" ADD COLUMN "changed_at_revision" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "clusters_changed_at_revision" ON "clusters" USING btree ("changed_at_revision");--> statement-breakpoint
INSERT INTO "plan_revisions" ("scope", "revision") VALUES ('cluster_rows', 0);
--> statement-breakpoint
CREATE FUNCTION "plan_cluster_rows_bump"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "plan_revisions" SET "revision" = "revision" + 1 WHERE "scope" = 'cluster_rows';
  UPDATE "clusters" SET "changed_at_revision" = (SELECT "revision" FROM "plan_revisions" WHERE "scope" = 'cluster_rows') WHERE "id" = NEW."id";
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "plan_cluster_rows_update" AFTER UPDATE ON "clusters" FOR EACH ROW WHEN (OLD."organization_id" IS NOT DISTINCT FROM NEW."organization_id" AND OLD."name" IS NOT DISTINCT FROM NEW."name" AND OLD."position" IS NOT DISTINCT FROM NEW."position" AND (OLD."version" IS DISTINCT FROM NEW."version" OR OLD."channel" IS DISTINCT FROM NEW."channel" OR OLD."available_upgrades" IS DISTINCT FROM NEW."available_upgrades" OR OLD."healthy" IS DISTINCT FROM NEW."healthy" OR OLD."health_issues" IS DISTINCT FROM NEW."health_issues" OR OLD."upgrade_policy" IS DISTINCT FROM NEW."upgrade_policy" OR OLD."current_upgrade" IS DISTINCT FROM NEW."current_upgrade" OR OLD."upgrade_state" IS DISTINCT FROM NEW."upgrade_state" OR OLD."pending_version_gates" IS DISTINCT FROM NEW."pending_version_gates" OR OLD."inhibitors" IS DISTINCT FROM NEW."inhibitors" OR OLD."labels" IS DISTINCT FROM NEW."labels" OR OLD."fleetplan_labels" IS DISTINCT FROM NEW."fleetplan_labels")) EXECUTE FUNCTION "plan_cluster_rows_bump"();
