// Command dispatcher for `npx fleetplan <command>`. Each command returns its exit code.
type Command = { summary: string; run: (args: string[]) => Promise<number> };

const COMMANDS: Record<string, Command> = {
  backup: {
    summary: 'backup FILE [--force]             consistent copy of the database while the server runs',
    run: async (args) => (await import('./backup-command')).runBackupCommand(args),
  },
  restore: {
    summary: 'restore FILE [--force]            replace the database with a backup (stop the server first)',
    run: async (args) => (await import('./restore-command')).runRestoreCommand(args),
  },
  plan: {
    summary: 'plan FILE [--now ISO-8601]        decide upgrades for a fleet document (contracts/plan.md)',
    run: async (args) => (await import('./plan-command')).runPlanCommand(args),
  },
  path: {
    summary: 'path --graph FILE --from VERSION  solve an upgrade path through update graphs (contracts/path.md)',
    run: async (args) => (await import('./path-command')).runPathCommand(args),
  },
  graph: {
    summary: 'graph import FILE | graph list    store update graphs for the Paths page (--name --channel --arch --captured-at)',
    run: async (args) => (await import('./graph-command')).runGraphCommand(args),
  },
  import: {
    summary: 'import FILE [--dry-run]           replace the policies with an OCM organization file (YAML)',
    run: async (args) => (await import('./import-command')).runImportCommand(args),
  },
  export: {
    summary: 'export [--cluster NAME]           the policies as an OCM organization (or cluster) file on stdout',
    run: async (args) => (await import('./export-command')).runExportCommand(args),
  },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([, c]) => `  fleetplan ${c.summary}`);
  return ['usage: fleetplan <command> [options]', '', 'commands:', ...lines, ''].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage());
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`fleetplan: unknown command '${name}'\n${usage()}`);
    return 2;
  }
  try {
    return await command.run(rest);
  } catch (err) {
    process.stderr.write(`fleetplan ${name}: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}
