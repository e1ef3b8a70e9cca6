#!/usr/bin/env node
// Starts the built app for Playwright on a brand-new database (DATABASE_URL), seeded fresh.
import fs from 'node:fs';

const file = process.env.DATABASE_URL;
if (!file) throw new Error('e2e-server: DATABASE_URL must name a temporary database file');
// the database, its WAL files and its secret key file (server/crypto/server-secret-key.ts)
for (const suffix of ['', '-wal', '-shm', '.key']) fs.rmSync(file + suffix, { force: true });
await import('./start.mjs');
