// Unexpected failures (a bug, a database error, a parser blowing up) must not show their message
// or stack to clients: those name files, SQL and internals. The client gets a generic message and
// a reference; the server log gets the same reference with the real error, so the two can be matched.

export const INTERNAL_ERROR_MESSAGE = 'Internal server error';

/** Logs `error` under a fresh reference and returns the reference to hand to the client. */
export function reportInternalError(error: unknown, where: string, log: (...args: unknown[]) => void = console.error): string {
  const reference = crypto.randomUUID();
  log(`[${reference}] ${where} failed:`, error);
  return reference;
}

export function internalErrorMessage(reference: string): string {
  return `${INTERNAL_ERROR_MESSAGE} (reference ${reference})`;
}
