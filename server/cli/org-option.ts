// `--org NAME` (or `--org=NAME`) on the commands that work on one organization's data: taken out
// of the arguments before the command reads its own; absent, the first organization (the scope
// rule in server/services/organization-scope.ts).
export function takeOrgOption(args: readonly string[]): { org: string | undefined; rest: string[] } | { error: string } {
  const rest: string[] = [];
  let org: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--org' || arg.startsWith('--org=')) {
      const value = arg === '--org' ? args[++i] : arg.slice('--org='.length);
      if (!value) return { error: '--org needs a name' };
      if (org !== undefined) return { error: '--org given twice' };
      org = value;
    } else rest.push(arg);
  }
  return { org, rest };
}
