// The throw-away PostgreSQL really runs, accepts connections on its port, gives fresh databases,
// and leaves nothing behind once stopped.
import fs from 'node:fs';
import { Client } from 'pg';
import { describe, expect, it } from 'vitest';
import { startThrowawayPostgres } from './throwaway-postgres';

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('startThrowawayPostgres', () => {
  it('starts a server, makes databases on it, and stop() removes it and its directory', async () => {
    const server = await startThrowawayPostgres();
    let stopped = false;
    try {
      const [row] = await query<{ version: string }>(server.url, 'select version()');
      expect(row!.version).toMatch(/^PostgreSQL \d+/);
      const url = await server.createDatabase('fresh_one');
      expect(url).toBe(`postgres://postgres@127.0.0.1:${server.port}/fresh_one`);
      const tables = await query<{ n: string }>(url, "select count(*) as n from pg_tables where schemaname = 'public'");
      expect(tables[0]!.n).toBe('0');
      const [dataDir] = await query<{ data_directory: string }>(server.url, 'show data_directory');
      expect(fs.existsSync(dataDir!.data_directory)).toBe(true);
      server.stop();
      stopped = true;
      expect(fs.existsSync(dataDir!.data_directory)).toBe(false);
      await expect(query(server.url, 'select 1')).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      if (!stopped) server.stop();
    }
  });
});
