// The fakes run as their own process (for the crash test of the real server): they start on the
// given port, answer the API, count writes, and stop on SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createOcmProvider } from '@/server/integrations/providers/ocm';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

function start(kind: 'ocm' | 'openshift'): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('tests', 'fakes', 'serve.ts'), kind, '--port', '0'], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.on('exit', (code) => reject(new Error(`fake exited with ${code}`)));
  });
}

describe('tests/fakes/serve.ts', () => {
  it('serves the fake OCM on loopback to the real provider, counts its writes, and stops on SIGTERM', async () => {
    const { child, url } = await start('ocm');
    const ocm = createOcmProvider({ baseUrl: url, token: 'fake-ocm-token' });
    const now = new Date();
    const { clusters } = await ocm.observe(now);
    expect(clusters.map((c) => c.name)).toEqual(['stage-1', 'prod-1']);
    await ocm.startUpgrade(
      { externalId: 'c-stage-1', name: 'stage-1', version: '4.13.11', at: new Date(now.getTime() + 30 * 60_000), idempotencyKey: 'k' },
      now,
    );
    const writes = (await (await fetch(`${url}/_fake/writes`)).json()) as { writes: { cluster: string; method: string }[] };
    expect(writes.writes.map((w) => `${w.method} ${w.cluster}`)).toEqual(['POST c-stage-1']);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('serves the fake OpenShift API', async () => {
    const { url } = await start('openshift');
    const res = await fetch(`${url}/clusters/prod-1/apis/config.openshift.io/v1/clusterversions/version`, {
      headers: { authorization: 'Bearer fake-kube-token' },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: { desired: { version: string } } }).status.desired.version).toBe('4.13.10');
  });
});
