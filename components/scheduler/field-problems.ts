// Turns a tRPC mutation error into problems per field: AppError problems (service validation)
// and zod issues (input shape) both carry a path; anything else is a form-level message.

export interface FieldProblem {
  path: string;
  message: string;
}

interface ErrorLike {
  message: string;
  data?: unknown;
}

export function problemsOf(error: ErrorLike | null | undefined): { byField: Record<string, string[]>; general: string | null } {
  if (!error) return { byField: {}, general: null };
  const data = (error.data ?? {}) as { problems?: FieldProblem[] | null; zodError?: FieldProblem[] | null };
  const list = [...(data.problems ?? []), ...(data.zodError ?? [])];
  const byField: Record<string, string[]> = {};
  for (const p of list) (byField[p.path || 'form'] ??= []).push(p.message);
  const general = list.length === 0 ? error.message : (byField.form?.join('; ') ?? null);
  return { byField, general };
}

export function mergeProblems(...sources: Record<string, string[]>[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const s of sources) for (const [k, v] of Object.entries(s)) (out[k] ??= []).push(...v);
  return out;
}
