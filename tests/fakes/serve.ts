// Runs a fake API as its own process, so a test can point the real `npm start` server at it and
// SIGKILL either side. Loopback only.
//
//   node --import tsx tests/fakes/serve.ts ocm|openshift --port N [--fleet FLEET.json] [--kubeconfig OUT.yaml]
//
// FLEET.json: {"clusters": [...]} as FakeOcmClusterSpec / FakeOpenShiftClusterSpec (a small default
// fleet otherwise); for OCM also "versionGates": [...] as FakeVersionGate. Prints one line `listening URL` when ready. Scripting and the write counters
// are under `/_fake/` (see fake-ocm.ts and fake-openshift.ts), plus, for the crash test:
//   POST /_fake/kill-on-write {"pgid": N, "afterMs": 0}  on the next accepted write, SIGKILL the
//        process group N: at once (before the write is answered, so the server never learns that
//        it succeeded) or `afterMs` after it was answered. One shot; POST /_fake/disarm undoes it.
//   GET  /_fake/kills  the kills done so far, each with the write that triggered it.
import fs from 'node:fs';
import type { FakeRequest, FakeResponse } from './http-server';
import { startFakeOcm, type FakeOcmClusterSpec, type FakeVersionGate } from './fake-ocm';
import { startFakeOpenShift, type FakeOpenShiftClusterSpec } from './fake-openshift';

const RELEASES = ['4.13.10', '4.13.11', '4.13.12', '4.13.13', '4.14.1'];

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

interface KillSwitch {
  control(req: FakeRequest): FakeResponse | undefined;
  onWrite(write: unknown): void;
}

/** The crash test's kill switch: SIGKILL a process group when the fake accepts a write. */
function killSwitch(): KillSwitch {
  let armed: { pgid: number; afterMs: number } | null = null;
  const kills: { pgid: number; afterMs: number; write: unknown; at: string }[] = [];
  const kill = (pgid: number) => {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  return {
    control(req) {
      if (req.path === '/_fake/kills' && req.method === 'GET') return { status: 200, body: { kills, armed } };
      if (req.path === '/_fake/disarm' && req.method === 'POST') {
        armed = null;
        return { status: 200, body: { armed } };
      }
      if (req.path !== '/_fake/kill-on-write' || req.method !== 'POST') return undefined;
      const body = (req.body ?? {}) as { pgid?: unknown; afterMs?: unknown };
      const pgid = Number(body.pgid);
      const afterMs = Number(body.afterMs ?? 0);
      if (!Number.isInteger(pgid) || pgid <= 1 || !Number.isFinite(afterMs) || afterMs < 0)
        return { status: 400, body: { message: 'kill-on-write needs {pgid: a process group id > 1, afterMs >= 0}' } };
      armed = { pgid, afterMs };
      return { status: 200, body: { armed } };
    },
    onWrite(write) {
      if (!armed) return;
      const { pgid, afterMs } = armed;
      armed = null;
      kills.push({ pgid, afterMs, write, at: new Date().toISOString() });
      if (afterMs === 0) kill(pgid);
      else setTimeout(() => kill(pgid), afterMs);
    },
  };
}

async function main(): Promise<void> {
  const [kind, ...args] = process.argv.slice(2);
  const port = Number(flag(args, '--port') ?? 0);
  if ((kind !== 'ocm' && kind !== 'openshift') || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error('usage: serve.ts ocm|openshift --port N [--fleet FLEET.json] [--kubeconfig OUT.yaml]');
  const fleetFile = flag(args, '--fleet');
  const fleet = fleetFile
    ? (JSON.parse(fs.readFileSync(fleetFile, 'utf8')) as { clusters: unknown[]; versionGates?: FakeVersionGate[] })
    : null;
  let close: () => Promise<void>;
  const switcher = killSwitch();
  const control = (req: FakeRequest) => switcher.control(req);
  if (kind === 'ocm') {
    const clusters = (fleet?.clusters as FakeOcmClusterSpec[] | undefined) ?? [
      { id: 'c-stage-1', name: 'stage-1', version: '4.13.10', releases: RELEASES },
      { id: 'c-prod-1', name: 'prod-1', version: '4.13.10', releases: RELEASES },
    ];
    const fake = await startFakeOcm({ clusters, versionGates: fleet?.versionGates, port, token: process.env.FAKE_OCM_TOKEN, control });
    fake.onWrite((w) => switcher.onWrite(w));
    close = () => fake.close();
    process.stdout.write(`listening ${fake.url}\n`);
  } else {
    const clusters = (fleet?.clusters as FakeOpenShiftClusterSpec[] | undefined) ?? [
      { name: 'stage-1', version: '4.13.10', releases: RELEASES },
      { name: 'prod-1', version: '4.13.10', releases: RELEASES },
    ];
    const fake = await startFakeOpenShift({ clusters, port, token: process.env.FAKE_KUBE_TOKEN, control });
    fake.onWrite((w) => switcher.onWrite(w));
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
