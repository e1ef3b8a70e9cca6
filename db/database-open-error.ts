// The error of a database that cannot be opened, in a module of its own: the CLI's dispatcher
// recognises it for every command, and importing it must not load better-sqlite3 and drizzle
// (a `fleetplan plan` or `--help` never opens the database).

/** The database could not be opened; the message names the file and says what is wrong. */
export class DatabaseOpenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseOpenError';
  }
}
