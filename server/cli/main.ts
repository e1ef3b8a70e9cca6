// Command dispatcher for `npx fleetplan <command>`. Each command returns its exit code; a command
// that throws gets one line on stderr and exit 1 (2 for a usage error), see cli-errors.ts.
import { describeFailure } from './cli-errors';

type Command = { summary: string; run: (args: string[]) => Promise<number> };

const COMMANDS: Record<string, Command> = {
  backup: {
    summary: 'backup FILE [--force]             consistent copy of the database while the server runs',
    run: async (args) => (await import('./backup-command')).runBackupCommand(args),
  },
  restore: {
    summary: 'restore FILE                      replace the database with a verified backup (stop the server first)',
    run: async (args) => (await import('./restore-command')).runRestoreCommand(args),
  },
  'migrate-db': {
    summary: 'migrate-db --from sqlite:PATH --to postgres://…  copy the SQLite database into an empty PostgreSQL one, verified row for row',
    run: async (args) => (await import('./migrate-db-command')).runMigrateDbCommand(args),
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
    summary:
      'import [--cluster] FILE [--dry-run] [--org NAME] replace the policies (of the first organization, or --org) with an OCM organization file, or one cluster file (YAML)',
    run: async (args) => (await import('./import-command')).runImportCommand(args),
  },
  org: {
    summary:
      'org list | org create NAME | org provider NAME KIND [REF] | org groups [NAME MAPPING|--clear]   the organizations; create one (or name the blank first-run one); its own provider; its OIDC group → role mapping',
    run: async (args) => await (await import('./org-command')).runOrgCommand(args),
  },
  approve: {
    summary: 'approve --sector S --version V    approve a sector gate (--kind before|after, --reason TEXT)',
    run: async (args) => await (await import('./approve-command')).runApproveCommand(args),
  },
  approvals: {
    summary: 'approvals list [--all] | revoke … approvals of sector gates; revoke one (same options as approve)',
    run: async (args) => await (await import('./approve-command')).runApprovalsCommand(args),
  },
  blocked: {
    summary: 'blocked list | add PATTERN --reason TEXT | remove PATTERN   versions blocked instance-wide (every organization)',
    run: async (args) => await (await import('./blocked-command')).runBlockedCommand(args),
  },
  demo: {
    summary: 'demo remove --yes                 remove the simulated demo fleet (a blank organization stays)',
    run: async (args) => await (await import('./org-command')).runDemoCommand(args),
  },
  gate: {
    summary: 'gate list | gate ack CLUSTER MINOR provider version gates not agreed to; agree to one (--yes; audited)',
    run: async (args) => (await import('./gate-command')).runGateCommand(args),
  },
  label: {
    summary:
      'label CLUSTER [k=v ...] [k- ...]   set (k=v) or remove (k-) fleetplan labels of a cluster, as kubectl label; none: list its labels',
    run: async (args) => await (await import('./label-command')).runLabelCommand(args),
  },
  export: {
    summary: 'export [--cluster NAME] [--org NAME] the policies as an OCM organization (or cluster) file on stdout',
    run: async (args) => await (await import('./export-command')).runExportCommand(args),
  },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([, c]) => `  fleetplan ${c.summary}`);
  return ['usage: fleetplan <command> [options]', '', 'commands:', ...lines, ''].join('\n');
}

export async function main(argv: string[], env: Record<string, string | undefined> = process.env): Promise<number> {
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
    const failure = describeFailure(name, err, env);
    process.stderr.write(failure.text);
    return failure.exitCode;
  }
}
