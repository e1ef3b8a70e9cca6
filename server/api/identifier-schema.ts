// The identifier rule (server/domain/identifiers.ts) as a zod schema, for names that enter
// through the API: token, webhook, graph names and the like.
import { z } from 'zod';
import { identifierProblem } from '@/server/domain/identifiers';

/** A name of 1 to `maxLength` characters that passes the identifier rule. */
export function identifierSchema(maxLength: number) {
  return z
    .string()
    .min(1)
    .max(maxLength)
    .superRefine((name, ctx) => {
      const problem = identifierProblem(name);
      if (problem) ctx.addIssue({ code: 'custom', message: `not a valid name: ${problem}` });
    });
}
