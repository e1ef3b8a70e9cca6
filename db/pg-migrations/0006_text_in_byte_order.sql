-- Text compares and sorts in byte order, as on SQLite (BINARY), whatever the database's own
-- collation is: a production database created with en_US.UTF-8 would otherwise list `B` before
-- `a-b` on one database kind and after it on the other, and the Fleet list's pages would differ.
-- Every text column of fleetplan's tables gets COLLATE "C"; indexes on them are rebuilt with it.
-- Triggers that name such a column (UPDATE OF …, WHEN …) block the change: they are dropped and
-- made again as they were, in this one transaction. (A text column added later must say
-- COLLATE "C" too: a test checks every text column.)
DO $$
DECLARE
  trg record;
  col record;
  definitions text[] := '{}';
  definition text;
BEGIN
  FOR trg IN
    SELECT tg.tgname, tg.tgrelid::regclass AS tbl, pg_get_triggerdef(tg.oid) AS def
    FROM pg_trigger tg
    JOIN pg_class cl ON cl.oid = tg.tgrelid
    WHERE NOT tg.tgisinternal AND cl.relnamespace = current_schema()::regnamespace
  LOOP
    definitions := definitions || trg.def;
    EXECUTE format('DROP TRIGGER %I ON %s', trg.tgname, trg.tbl);
  END LOOP;
  FOR col IN
    SELECT c.table_name, c.column_name
    FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = current_schema()
      AND t.table_type = 'BASE TABLE'
      AND c.data_type = 'text'
      AND coalesce(c.collation_name, '') <> 'C'
  LOOP
    EXECUTE format('ALTER TABLE %I ALTER COLUMN %I TYPE text COLLATE "C"', col.table_name, col.column_name);
  END LOOP;
  FOREACH definition IN ARRAY definitions LOOP
    EXECUTE definition;
  END LOOP;
END $$;
