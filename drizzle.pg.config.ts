// drizzle-kit config for PostgreSQL: `npm run db:generate` writes migrations for db/pg-schema.ts
// into db/pg-migrations (beside db/schema.ts's into db/migrations, see drizzle.config.ts).
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './db/pg-schema.ts',
  out: './db/pg-migrations',
});
