// drizzle-kit config: `npm run db:generate` writes migrations for db/schema.ts into db/migrations.
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './db/schema.ts',
  out: './db/migrations',
});
