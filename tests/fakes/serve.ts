// Runs a fake API as its own process, so a test can point the real `npm start` server at it and
// SIGKILL either side. Loopback only.
//
//   node --import tsx tests/fakes/serve.ts ocm|openshift --port N [--fleet FLEET.json] [--kubeconfig OUT.yaml]
//
// FLEET.json: {"clusters": [...]} as FakeOcmClusterSpec / FakeOpenShiftClusterSpec (a small default
// fleet otherwise). Prints one line `listening URL` when ready. Scripting and the write counters
// are under `/_fake/` (see fake-ocm.ts and fake-openshift.ts).
import fs from 'node:fs';
import { startFakeOcm, type FakeOcmClusterSpec } from './fake-ocm';
import { startFakeOpenShift, type FakeOpenShiftClusterSpec } from './fake-openshift';

const RELEASES = ['4.13.10', '4.13.11', '4.13.12', '4.13.13', '4.14.1'];

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(): Promise<void> {
  const [kind, ...args] = process.argv.slice(2);
  const port = Number(flag(args, '--port') ?? 0);
  if ((kind !== 'ocm' && kind !== 'openshift') || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error('usage: serve.ts ocm|openshift --port N [--fleet FLEET.json] [--kubeconfig OUT.yaml]');
  const fleetFile = flag(args, '--fleet');
  const fleet = fleetFile ? (JSON.parse(fs.readFileSync(fleetFile, 'utf8')) as { clusters: unknown[] }) : null;
  let close: () => Promise<void>;
  if (kind === 'ocm') {
    const clusters = (fleet?.clusters as FakeOcmClusterSpec[] | undefined) ?? [
      { id: 'c-stage-1', name: 'stage-1', version: '4.13.10', releases: RELEASES },
      { id: 'c-prod-1', name: 'prod-1', version: '4.13.10', releases: RELEASES },
    ];
    const fake = await startFakeOcm({ clusters, port, token: process.env.FAKE_OCM_TOKEN });
    close = () => fake.close();
    process.stdout.write(`listening ${fake.url}\n`);
  } else {
    const clusters = (fleet?.clusters as FakeOpenShiftClusterSpec[] | undefined) ?? [
      { name: 'stage-1', version: '4.13.10', releases: RELEASES },
      { name: 'prod-1', version: '4.13.10', releases: RELEASES },
    ];
    const fake = await startFakeOpenShift({ clusters, port, token: process.env.FAKE_KUBE_TOKEN });
    const out = flag(args, '--kubeconfig');
    if (out) fs.writeFileSync(out, fake.kubeconfig());
    close = () => fake.close();
    process.stdout.write(`listening ${fake.url}\n`);
  }
  const stop = () => void close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
