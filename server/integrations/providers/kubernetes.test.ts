// The Kubernetes provider's kubeconfig handling (each auth method client-node brings, the paths and
// token files kubectl users write) and its per-cluster isolation, discovery and writes, over real
// HTTPS against the fake OpenShift API (tests/fakes/fake-openshift.ts, shapes in PROVENANCE.md).
import { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeTls, fakeTlsFiles, startFakeOpenShift, type FakeOpenShift, type FakeOpenShiftClusterSpec } from '@/tests/fakes/fake-openshift';
import { loadKubeconfig } from './kubeconfig';
import {
  CLUSTER_VERSION_PATH,
  createKubernetesProviderFromKubeconfig,
  maxOpenShiftVersionOf,
  readInfrastructure,
  type KubernetesProviderOptions,
} from './kubernetes';

const NOW = new Date('2021-08-30T18:00:00Z');
const RELEASES = ['4.13.10', '4.13.11', '4.14.1'];
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function tmpDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-kube-'));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function fakeCluster(
  clusters: FakeOpenShiftClusterSpec[] = [{ name: 'east', version: '4.13.10', releases: RELEASES }],
  token = 'sha256~fake',
): Promise<FakeOpenShift> {
  const fake = await startFakeOpenShift({ clusters, token, now: () => NOW, tls: fakeTls() });
  cleanup.push(() => fake.close());
  return fake;
}

/** a kubeconfig document (JSON is YAML) */
function kubeconfig(doc: {
  clusters: { name: string; cluster: Record<string, unknown> }[];
  users?: { name: string; user: Record<string, unknown> }[];
  contexts: { name: string; context: Record<string, unknown> }[];
}): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'Config', users: [], ...doc, 'current-context': doc.contexts[0]?.name });
}

function writeFile(dir: string, name: string, text: string | Buffer): string {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

/** the fixtures' CA and client certificate copied under `dir/tls/` (so a kubeconfig can name them relatively) */
function copyTls(dir: string): void {
  const f = fakeTlsFiles();
  for (const [name, from] of [
    ['ca.crt', f.ca],
    ['client.crt', f.clientCert],
    ['client.key', f.clientKey],
  ] as const)
    writeFile(dir, path.join('tls', name), fs.readFileSync(from));
}

const caData = () => fs.readFileSync(fakeTlsFiles().ca).toString('base64');

/** a kubeconfig of the one context `east`: the fake's server with its CA inline, and this user */
function eastKubeconfig(fake: FakeOpenShift, user: { name: string; user: Record<string, unknown> }): string {
  return kubeconfig({
    clusters: [{ name: 'east', cluster: { server: fake.serverUrl('east'), 'certificate-authority-data': caData() } }],
    users: [user],
    contexts: [{ name: 'east', context: { cluster: 'east', user: user.name } }],
  });
}

/** a user whose exec credential plugin is the Node script `script` */
function nodeScriptExecUser(script: string): { name: string; user: Record<string, unknown> } {
  return { name: 'sso', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: [script] } } };
}

function provider(file: string, opts: KubernetesProviderOptions & { contexts?: string[] } = {}) {
  return createKubernetesProviderFromKubeconfig({ kubeconfigPath: file, ...opts });
}

/** a port nothing listens on (bound, then closed) */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('Kubernetes provider: kubeconfig auth methods', () => {
  it('token user with inline CA data', async () => {
    const fake = await fakeCluster();
    const file = writeFile(tmpDir(), 'config', fake.kubeconfig().replace('fake-kube-token', fake.token));
    const { clusters, errors } = await provider(file).observe(NOW);
    expect(errors).toEqual([]);
    expect(clusters.map((c) => [c.name, c.version])).toEqual([['east', '4.13.10']]);
    expect(new Set(fake.requests().map((r) => r.identity))).toEqual(new Set([fake.token]));
  });

  it('client certificate and key from files, and the CA file, all relative to the kubeconfig', async () => {
    const fake = await fakeCluster();
    const dir = tmpDir();
    copyTls(dir);
    const file = writeFile(
      dir,
      'config',
      kubeconfig({
        clusters: [{ name: 'east', cluster: { server: fake.serverUrl('east'), 'certificate-authority': 'tls/ca.crt' } }],
        users: [{ name: 'admin', user: { 'client-certificate': 'tls/client.crt', 'client-key': 'tls/client.key' } }],
        contexts: [{ name: 'east', context: { cluster: 'east', user: 'admin' } }],
      }),
    );
    // relative to the file, not to the working directory (which has no tls/ folder)
    expect(fs.existsSync(path.join(process.cwd(), 'tls'))).toBe(false);
    const { clusters, errors } = await provider(file).observe(NOW);
    expect(errors).toEqual([]);
    expect(clusters).toHaveLength(1);
    expect(new Set(fake.requests().map((r) => r.identity))).toEqual(new Set(['cert:fleetplan-cert-user']));
  });

  it('client certificate and key as inline data', async () => {
    const fake = await fakeCluster();
    const f = fakeTlsFiles();
    const file = writeFile(
      tmpDir(),
      'config',
      eastKubeconfig(fake, {
        name: 'admin',
        user: {
          'client-certificate-data': fs.readFileSync(f.clientCert).toString('base64'),
          'client-key-data': fs.readFileSync(f.clientKey).toString('base64'),
        },
      }),
    );
    expect((await provider(file).observe(NOW)).errors).toEqual([]);
    expect(fake.requests()[0]?.identity).toBe('cert:fleetplan-cert-user');
  });

  it('tokenFile relative to the kubeconfig, trimmed, and read again at each request (a rotated token is used)', async () => {
    const fake = await fakeCluster();
    const dir = tmpDir();
    writeFile(dir, 'secrets/token', `${fake.token}\n`);
    // `tokenFile` is client-go's field name (client-node only knows `token-file`)
    const file = writeFile(dir, 'config', eastKubeconfig(fake, { name: 'sa', user: { tokenFile: 'secrets/token' } }));
    const kube = provider(file);
    expect((await kube.observe(NOW)).errors).toEqual([]);
    expect(new Set(fake.requests().map((r) => r.identity))).toEqual(new Set([fake.token]));
    writeFile(dir, 'secrets/token', 'sha256~rotated-and-not-accepted\n');
    const { errors } = await kube.observe(NOW);
    expect(errors).toEqual([
      { externalId: 'east', name: 'east', message: 'GET clusterversions.config.openshift.io/version → HTTP 401: Unauthorized' },
    ]);
    expect(fake.requests().at(-1)?.identity).toBe('sha256~rotated-and-not-accepted');
  });

  it('an exec credential plugin (relative command): run with KUBERNETES_EXEC_INFO and its env, its token cached until it expires', async () => {
    const fake = await fakeCluster();
    const dir = tmpDir();
    const log = path.join(dir, 'plugin.log');
    // a tiny credential plugin, as `oc`/cloud logins are: prints an ExecCredential, logs each run
    writeFile(
      dir,
      'bin/fake-login.mjs',
      `#!/usr/bin/env node
import fs from 'node:fs';
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ info: process.env.KUBERNETES_EXEC_INFO, args: process.argv.slice(2) }) + '\\n');
process.stdout.write(JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  status: { token: process.env.FAKE_LOGIN_TOKEN, expirationTimestamp: new Date(Date.now() + 3600e3).toISOString() },
}));
`,
    );
    fs.chmodSync(path.join(dir, 'bin/fake-login.mjs'), 0o755);
    const file = writeFile(
      dir,
      'config',
      eastKubeconfig(fake, {
        name: 'sso',
        user: {
          exec: {
            apiVersion: 'client.authentication.k8s.io/v1',
            command: './bin/fake-login.mjs',
            args: ['get-token', '--cluster', 'east'],
            env: [{ name: 'FAKE_LOGIN_TOKEN', value: fake.token }],
            interactiveMode: 'Never',
          },
        },
      }),
    );
    expect((await provider(file).observe(NOW)).errors).toEqual([]);
    // the provider is rebuilt every tick: the credential outlives it
    expect((await provider(file).observe(NOW)).errors).toEqual([]);
    expect(new Set(fake.requests().map((r) => r.identity))).toEqual(new Set([fake.token]));
    const runs = fs
      .readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { info: string; args: string[] });
    expect(runs).toHaveLength(1);
    expect(runs[0]!.args).toEqual(['get-token', '--cluster', 'east']);
    expect(JSON.parse(runs[0]!.info)).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: { interactive: false },
    });
  });

  it('a failing exec plugin is that context’s error, with what the plugin said', async () => {
    const fake = await fakeCluster();
    const dir = tmpDir();
    writeFile(dir, 'login.mjs', `process.stderr.write('error: You must be logged in to the server (token expired)');\nprocess.exit(1);\n`);
    const file = writeFile(dir, 'config', eastKubeconfig(fake, nodeScriptExecUser(path.join(dir, 'login.mjs'))));
    const { errors } = await provider(file).observe(NOW);
    expect(errors[0]?.message).toMatch(/You must be logged in to the server \(token expired\)/);
    expect(fake.requests()).toEqual([]);
  });

  it('insecure-skip-tls-verify reads a server whose CA it was not given; without it the TLS failure is the error', async () => {
    const fake = await fakeCluster([
      { name: 'east', version: '4.13.10', releases: RELEASES },
      { name: 'west', version: '4.13.10', releases: RELEASES },
    ]);
    const file = writeFile(
      tmpDir(),
      'config',
      kubeconfig({
        clusters: [
          { name: 'east', cluster: { server: fake.serverUrl('east'), 'insecure-skip-tls-verify': true } },
          { name: 'west', cluster: { server: fake.serverUrl('west') } },
        ],
        users: [{ name: 'admin', user: { token: fake.token } }],
        contexts: [
          { name: 'east', context: { cluster: 'east', user: 'admin' } },
          { name: 'west', context: { cluster: 'west', user: 'admin' } },
        ],
      }),
    );
    const { clusters, errors } = await provider(file).observe(NOW);
    expect(clusters.map((c) => c.name)).toEqual(['east']);
    expect(errors.map((e) => e.name)).toEqual(['west']);
    expect(errors[0]!.message).toMatch(/certificate/);
  });

  it('merges several files (KUBECONFIG=a:b), the first one winning for a name, each resolving its own relative paths', async () => {
    const fake = await fakeCluster([
      { name: 'east', version: '4.13.10', releases: RELEASES },
      { name: 'west', version: '4.13.11', releases: RELEASES },
    ]);
    const a = tmpDir();
    const b = tmpDir();
    copyTls(b);
    const fileA = writeFile(
      a,
      'config',
      kubeconfig({
        clusters: [{ name: 'east', cluster: { server: fake.serverUrl('east'), 'certificate-authority-data': caData() } }],
        users: [{ name: 'admin', user: { token: fake.token } }],
        contexts: [{ name: 'east', context: { cluster: 'east', user: 'admin' } }],
      }),
    );
    const fileB = writeFile(
      b,
      'config',
      kubeconfig({
        clusters: [
          { name: 'west', cluster: { server: fake.serverUrl('west'), 'certificate-authority': 'tls/ca.crt' } },
          { name: 'east', cluster: { server: 'https://127.0.0.1:1' } },
        ],
        users: [{ name: 'admin', user: { token: 'not-this-one' } }],
        contexts: [
          { name: 'west', context: { cluster: 'west', user: 'admin' } },
          { name: 'east', context: { cluster: 'east', user: 'admin' } },
        ],
      }),
    );
    const { clusters, errors } = await provider([fileA, fileB].join(path.delimiter)).observe(NOW);
    expect(errors).toEqual([]);
    expect(clusters.map((c) => [c.name, c.version])).toEqual([
      ['east', '4.13.10'],
      ['west', '4.13.11'],
    ]);
  });
});

describe('Kubernetes provider: per-context errors', () => {
  it('reads the good contexts and reports each broken one with its reason', async () => {
    const fake = await fakeCluster([
      { name: 'east', version: '4.13.10', releases: RELEASES },
      { name: 'west', version: '4.13.10', releases: RELEASES },
    ]);
    const dir = tmpDir();
    const port = await closedPort();
    const ca = { 'certificate-authority-data': caData() };
    const file = writeFile(
      dir,
      'config',
      kubeconfig({
        clusters: [
          { name: 'east', cluster: { server: fake.serverUrl('east'), ...ca } },
          { name: 'west', cluster: { server: fake.serverUrl('west'), ...ca } },
          { name: 'gone', cluster: { server: `https://127.0.0.1:${port}`, ...ca } },
          { name: 'nocafile', cluster: { server: fake.serverUrl('east'), 'certificate-authority': 'missing/ca.crt' } },
        ],
        users: [
          { name: 'admin', user: { token: fake.token } },
          { name: 'certless', user: { 'client-certificate': 'nope.crt', 'client-key': 'nope.key' } },
        ],
        contexts: [
          { name: 'east', context: { cluster: 'east', user: 'admin' } },
          { name: 'unreachable', context: { cluster: 'gone', user: 'admin' } },
          { name: 'no-such-user', context: { cluster: 'east', user: 'nobody' } },
          { name: 'no-such-cluster', context: { cluster: 'nowhere', user: 'admin' } },
          { name: 'missing-ca', context: { cluster: 'nocafile', user: 'admin' } },
          { name: 'missing-cert', context: { cluster: 'east', user: 'certless' } },
          { name: 'west', context: { cluster: 'west', user: 'admin' } },
        ],
      }),
    );
    const { clusters, errors } = await provider(file).observe(NOW);
    expect(clusters.map((c) => c.name)).toEqual(['east', 'west']);
    const byName = Object.fromEntries(errors.map((e) => [e.name, e.message]));
    expect(Object.keys(byName)).toEqual(['unreachable', 'no-such-user', 'no-such-cluster', 'missing-ca', 'missing-cert']);
    expect(byName.unreachable).toMatch(new RegExp(`GET clusterversions.config.openshift.io/version: .*ECONNREFUSED 127.0.0.1:${port}`));
    expect(byName['no-such-user']).toBe('kubeconfig context no-such-user: no user nobody in the kubeconfig');
    expect(byName['no-such-cluster']).toBe('kubeconfig context no-such-cluster: no cluster nowhere in the kubeconfig');
    expect(byName['missing-ca']).toContain(path.join(dir, 'missing/ca.crt'));
    expect(byName['missing-cert']).toContain(path.join(dir, 'nope.crt'));
    // the broken contexts sent nothing; observeCluster of one throws its reason
    await expect(provider(file).observeCluster({ externalId: 'no-such-user', name: 'no-such-user' }, NOW)).rejects.toMatchObject({
      name: 'ProviderError',
      message: 'kubeconfig context no-such-user: no user nobody in the kubeconfig',
    });
  });

  it('a configured context that is not in the file is an error; the configured ones are read in their order', async () => {
    const fake = await fakeCluster([
      { name: 'east', version: '4.13.10', releases: RELEASES },
      { name: 'west', version: '4.13.10', releases: RELEASES },
    ]);
    const file = writeFile(tmpDir(), 'config', fake.kubeconfig());
    const { clusters, errors } = await provider(file, { contexts: ['west', 'typo'] }).observe(NOW);
    expect(clusters.map((c) => c.name)).toEqual(['west']);
    expect(errors).toEqual([{ externalId: 'typo', name: 'typo', message: 'no context typo in the kubeconfig' }]);
    expect(fake.requests('east')).toEqual([]);
  });

  it("keeps a 403 or 404 Status's message in the error", async () => {
    const fake = await fakeCluster([
      { name: 'east', version: '4.13.10', releases: RELEASES },
      { name: 'west', version: '4.13.10', releases: RELEASES },
      { name: 'plain', version: '4.13.10', releases: RELEASES },
    ]);
    const forbidden =
      'clusterversions.config.openshift.io "version" is forbidden: User "system:serviceaccount:fleetplan:reader" cannot get resource "clusterversions" in API group "config.openshift.io" at the cluster scope';
    fake.setPathFault('east', CLUSTER_VERSION_PATH, 403, forbidden);
    fake.setPathFault('plain', CLUSTER_VERSION_PATH, 404, 'the server could not find the requested resource');
    const file = writeFile(tmpDir(), 'config', fake.kubeconfig());
    const { clusters, errors } = await provider(file).observe(NOW);
    expect(clusters.map((c) => c.name)).toEqual(['west']);
    expect(errors).toEqual([
      { externalId: 'east', name: 'east', message: `GET clusterversions.config.openshift.io/version → HTTP 403: ${forbidden}` },
      {
        externalId: 'plain',
        name: 'plain',
        message: 'GET clusterversions.config.openshift.io/version → HTTP 404: the server could not find the requested resource',
      },
    ]);
    await expect(provider(file).observeCluster({ externalId: 'east', name: 'east' }, NOW)).rejects.toMatchObject({ status: 403 });
  });

  it('a cluster that never answers times out on its own; the others are read meanwhile', async () => {
    const fake = await fakeCluster([
      { name: 'east', version: '4.13.10', releases: RELEASES },
      { name: 'west', version: '4.13.10', releases: RELEASES },
    ]);
    fake.setFault('east', 'hang');
    const file = writeFile(tmpDir(), 'config', fake.kubeconfig());
    // east never answers until the fake closes, after the test: the read ending at all, with the
    // request timeout's message (not the cluster deadline's), is the request timeout at work
    // (long enough that west, which answers, is read within it on a loaded machine)
    const { clusters, errors } = await provider(file, { requestTimeoutMs: 2_000 }).observe(NOW);
    expect(clusters.map((c) => c.name)).toEqual(['west']);
    expect(errors).toEqual([
      { externalId: 'east', name: 'east', message: 'GET clusterversions.config.openshift.io/version: no answer within 2000 ms' },
    ]);
  });

  /** whether process `pid` is there (signal 0 asks without touching it) */
  function running(pid: number): boolean {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * A context whose exec credential plugin never answers (an interactive login waiting for a
   * browser). The plugin writes its pid once it runs. Left alone it would wait a minute, far longer
   * than any test here, so that its being gone is the provider's doing; the clean-up stops it.
   */
  function hangingLogin(fake: FakeOpenShift, dir: string): { file: string; pidFile: string } {
    const pidFile = path.join(dir, 'plugin.pid');
    writeFile(
      dir,
      'hang.mjs',
      `import fs from 'node:fs';\nfs.writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));\nsetTimeout(() => process.exit(1), 60_000);\n`,
    );
    const file = writeFile(dir, 'config', eastKubeconfig(fake, nodeScriptExecUser(path.join(dir, 'hang.mjs'))));
    cleanup.push(() => {
      const pid = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8')) : 0;
      if (pid > 0 && running(pid)) process.kill(pid, 'SIGKILL');
    });
    return { file, pidFile };
  }

  it('stops an exec plugin that does not answer in time, and says so', async () => {
    const fake = await fakeCluster();
    const { file, pidFile } = hangingLogin(fake, tmpDir());
    // The plugin's time limit runs on a fake clock, moved on only once the plugin runs: on a busy
    // machine a Node process can take longer than the limit just to start, and would be stopped
    // before it wrote its pid.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    cleanup.push(() => {
      vi.useRealTimers();
    });
    const kill = vi.spyOn(ChildProcess.prototype, 'kill');
    cleanup.push(() => kill.mockRestore());
    let settled = false;
    const observed = provider(file, { execTimeoutMs: 500 })
      .observe(NOW)
      .finally(() => (settled = true));
    // node:timers/promises is not faked (expect.poll would move the fake clock on as it waits)
    while (!(fs.existsSync(pidFile) && Number(fs.readFileSync(pidFile, 'utf8')) > 0)) await sleep(20);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    // short of the limit: the plugin is left to run and the read waits for it
    await vi.advanceTimersByTimeAsync(499);
    expect({ kills: kill.mock.calls.length, running: running(pid), settled }).toEqual({ kills: 0, running: true, settled: false });
    // at the limit: stopped there and then
    await vi.advanceTimersByTimeAsync(1);
    expect(kill).toHaveBeenCalledTimes(1);
    const { errors } = await observed;
    expect(errors).toEqual([
      {
        externalId: 'east',
        name: 'east',
        message: `GET clusterversions.config.openshift.io/version: exec credential plugin ${process.execPath} gave no credential within 500 ms`,
      },
    ]);
    vi.useRealTimers();
    // stopped by the provider: on its own the plugin would wait a minute
    await expect.poll(() => running(pid), { timeout: 10_000 }).toBe(false);
  });

  it('bounds a cluster read as a whole (the deadline covers what the request timeout does not)', async () => {
    const fake = await fakeCluster();
    const { file } = hangingLogin(fake, tmpDir());
    const { errors } = await provider(file, { execTimeoutMs: 1500, clusterDeadlineMs: 300 }).observe(NOW);
    expect(errors).toEqual([{ externalId: 'east', name: 'east', message: 'reading east: no answer within 300 ms' }]);
  });
});

describe('Kubernetes provider: health and discovery', () => {
  it('reports a Degraded MachineConfigPool as a health issue', async () => {
    const fake = await fakeCluster();
    fake.degradePool('east', 'worker', 'Node ip-10-0-3-103.ec2.internal is reporting: "unexpected on-disk state"');
    const c = await provider(writeFile(tmpDir(), 'config', fake.kubeconfig())).observeCluster({ externalId: 'east', name: 'east' }, NOW);
    expect(c.healthy).toBe(false);
    expect(c.health.other).toEqual([
      'MachineConfigPool worker Degraded: Node ip-10-0-3-103.ec2.internal is reporting: "unexpected on-disk state"',
    ]);
    expect(c.healthIssues).toEqual(c.health.other);
  });

  it('fills discovery: labels from the context extension, cloud and region from Infrastructure, the node count from one list item', async () => {
    const fake = await fakeCluster([
      { name: 'east', version: '4.13.10', releases: RELEASES, nodes: 250 },
      { name: 'gcp', version: '4.13.10', releases: RELEASES, platform: { type: 'GCP', region: 'europe-west4' }, nodes: 1 },
      { name: 'azure', version: '4.13.10', releases: RELEASES, platform: { type: 'Azure', region: 'westeurope' } },
      { name: 'metal', version: '4.13.10', releases: RELEASES, platform: { type: 'BareMetal' } },
    ]);
    const ca = { 'certificate-authority-data': caData() };
    const file = writeFile(
      tmpDir(),
      'config',
      kubeconfig({
        clusters: ['east', 'gcp', 'azure', 'metal'].map((n) => ({ name: n, cluster: { server: fake.serverUrl(n), ...ca } })),
        users: [{ name: 'admin', user: { token: fake.token } }],
        contexts: ['east', 'gcp', 'azure', 'metal'].map((n) => ({
          name: n,
          context: {
            cluster: n,
            user: 'admin',
            ...(n === 'east'
              ? { extensions: [{ name: 'fleetplan', extension: { labels: { env: 'prod', tier: 1, nested: { no: 'x' } } } }] }
              : {}),
          },
        })),
      }),
    );
    const { clusters } = await provider(file).observe(NOW);
    expect(Object.fromEntries(clusters.map((c) => [c.name, c.discovery]))).toEqual({
      east: { labels: { env: 'prod', tier: '1' }, cloud: 'aws', region: 'us-east-1', nodeCount: 250 },
      gcp: { labels: {}, cloud: 'gcp', region: 'europe-west4', nodeCount: 1 },
      // Azure's platformStatus has no region: the nodes' topology label says it
      azure: { labels: {}, cloud: 'azure', region: 'westeurope', nodeCount: 6 },
      metal: { labels: {}, cloud: 'baremetal', region: 'us-east-1', nodeCount: 6 },
    });
    // one Node in the answer, never the 250
    expect(fake.requests('east').filter((r) => r.path === '/api/v1/nodes')).toEqual([expect.objectContaining({ query: { limit: '1' } })]);
  });

  it('pages through the nodes when the server leaves remainingItemCount out, and leaves a part it cannot read null', async () => {
    const fake = await fakeCluster([{ name: 'east', version: '4.13.10', releases: RELEASES, nodes: 1201 }]);
    fake.setRemainingItemCount('east', false);
    fake.setPathFault(
      'east',
      '/apis/config.openshift.io/v1/infrastructures/cluster',
      403,
      'infrastructures.config.openshift.io "cluster" is forbidden',
    );
    const kube = provider(writeFile(tmpDir(), 'config', fake.kubeconfig()));
    const c = await kube.observeCluster({ externalId: 'east', name: 'east' }, NOW);
    expect(c.discovery).toEqual({ labels: {}, cloud: null, region: 'us-east-1', nodeCount: 1201 });
    expect(
      fake
        .requests('east')
        .filter((r) => r.path === '/api/v1/nodes')
        .map((r) => r.query.limit),
    ).toEqual(['1', '500', '500', '500']);
    fake.setPathFault('east', '/api/v1/nodes', 403, 'nodes is forbidden');
    expect((await kube.observeCluster({ externalId: 'east', name: 'east' }, NOW)).discovery).toEqual({
      labels: {},
      cloud: null,
      region: null,
      nodeCount: null,
    });
  });

  it('reads the platform of every Infrastructure shape it may meet', () => {
    const infra = (platformStatus: unknown, platform?: string) => ({ status: { platformStatus, ...(platform ? { platform } : {}) } });
    expect(readInfrastructure(infra({ type: 'AWS', aws: { region: 'eu-west-1' } }))).toEqual({ cloud: 'aws', region: 'eu-west-1' });
    expect(readInfrastructure(infra({ type: 'IBMCloud', ibmcloud: { location: 'us-south' } }))).toEqual({
      cloud: 'ibmcloud',
      region: 'us-south',
    });
    expect(readInfrastructure(infra({ type: 'AlibabaCloud', alibabaCloud: { region: 'cn-hangzhou' } }))).toEqual({
      cloud: 'alibabacloud',
      region: 'cn-hangzhou',
    });
    expect(readInfrastructure(infra({ type: 'None' }))).toEqual({ cloud: 'none', region: null });
    expect(readInfrastructure(infra(undefined, 'VSphere'))).toEqual({ cloud: 'vsphere', region: null });
    expect(readInfrastructure({})).toEqual({ cloud: null, region: null });
    expect(readInfrastructure('not an object')).toEqual({ cloud: null, region: null });
  });
});

describe('Kubernetes provider: operators and removed APIs', () => {
  it('reads installed operators (each once, with its maxOpenShiftVersion) and removed APIs in use with their callers', async () => {
    const fake = await fakeCluster([
      {
        name: 'east',
        version: '4.15.20',
        releases: RELEASES,
        installedOperators: [
          { name: 'cluster-logging.v5.8.1', namespace: 'openshift-logging', maxOpenShiftVersion: '4.15' },
          { name: 'cert-manager.v1.13.0', namespace: 'cert-manager' },
        ],
        removedApiUse: [
          {
            resource: 'flowschemas.v1beta2.flowcontrol.apiserver.k8s.io',
            removedInRelease: '1.29',
            users: [
              { username: 'ci-robot', requests: 6 },
              { username: 'system:serviceaccount:monitoring:kube-state-metrics', requests: 36 },
            ],
          },
        ],
      },
    ]);
    const c = await provider(writeFile(tmpDir(), 'config', fake.kubeconfig())).observeCluster({ externalId: 'east', name: 'east' }, NOW);
    expect(c.inhibitors).toEqual({
      operators: [
        { name: 'cluster-logging.v5.8.1', namespace: 'openshift-logging', maxOpenShiftVersion: '4.15' },
        { name: 'cert-manager.v1.13.0', namespace: 'cert-manager', maxOpenShiftVersion: null },
      ],
      removedApis: [
        {
          resource: 'flowschemas.v1beta2.flowcontrol.apiserver.k8s.io',
          removedInRelease: '1.29',
          users: ['ci-robot', 'system:serviceaccount:monitoring:kube-state-metrics'],
        },
      ],
    });
  });

  it('leaves the facts out when one of the two lists cannot be read (a partial read must not erase a stored limit)', async () => {
    const fake = await fakeCluster([
      {
        name: 'east',
        version: '4.15.20',
        releases: RELEASES,
        installedOperators: [{ name: 'a.v1', namespace: 'a', maxOpenShiftVersion: '4.15' }],
      },
    ]);
    fake.setPathFault('east', '/apis/operators.coreos.com/v1alpha1/clusterserviceversions', 403);
    const kube = provider(writeFile(tmpDir(), 'config', fake.kubeconfig()));
    const c = await kube.observeCluster({ externalId: 'east', name: 'east' }, NOW);
    expect(c.version).toBe('4.15.20');
    expect(c.inhibitors).toBeUndefined();
    fake.setPathFault('east', '/apis/operators.coreos.com/v1alpha1/clusterserviceversions', null);
    expect((await kube.observeCluster({ externalId: 'east', name: 'east' }, NOW)).inhibitors?.operators).toEqual([
      { name: 'a.v1', namespace: 'a', maxOpenShiftVersion: '4.15' },
    ]);
  });

  it('reads maxOpenShiftVersion as OLM does: the raw JSON, quotes trimmed', () => {
    const prop = (value: string) =>
      `[{"type":"olm.package","value":{"packageName":"x"}},{"type":"olm.maxOpenShiftVersion","value":${value}}]`;
    expect(maxOpenShiftVersionOf(prop('"4.15"'))).toBe('4.15');
    expect(maxOpenShiftVersionOf(prop('4.10'))).toBe('4.10');
    expect(maxOpenShiftVersionOf(prop('"\\"4.16\\""'))).toBe('4.16');
    expect(maxOpenShiftVersionOf('[{"value":"4.14.2","type":"olm.maxOpenShiftVersion"}]')).toBe('4.14.2');
    expect(maxOpenShiftVersionOf(prop('"four"'))).toBe('four');
    expect(maxOpenShiftVersionOf('[{"type":"olm.package","value":{"packageName":"x"}}]')).toBeNull();
  });

  it('reports none for a cluster without OLM or APIRequestCount (404: not installed; not an error)', async () => {
    const fake = await fakeCluster([{ name: 'east', version: '4.15.20', releases: RELEASES, olm: false }]);
    const c = await provider(writeFile(tmpDir(), 'config', fake.kubeconfig())).observeCluster({ externalId: 'east', name: 'east' }, NOW);
    expect(c.version).toBe('4.15.20');
    expect(c.inhibitors).toEqual({ operators: [], removedApis: [] });
  });
});

describe('Kubernetes provider: start and cancel', () => {
  const ref = { externalId: 'east', name: 'east' };

  it('writes nothing when spec.desiredUpdate already names the version; cancel clears it while the operator has not begun it', async () => {
    const fake = await fakeCluster();
    const kube = provider(writeFile(tmpDir(), 'config', fake.kubeconfig()));
    // someone asked for 4.14.1 (not offered: the operator does not accept it, it stays in spec only)
    fake.clusterVersion('east').spec.desiredUpdate = { version: '4.14.1-rc.0', image: 'quay.io/x@sha256:0' };
    await kube.startUpgrade({ ...ref, version: '4.14.1-rc.0', at: NOW, idempotencyKey: 'k' }, NOW);
    expect(fake.writes()).toEqual([]);
    // cancel of another version: nothing
    await kube.cancelUpgrade({ ...ref, version: '4.13.11', idempotencyKey: 'c0' }, NOW);
    expect(fake.writes()).toEqual([]);
    await kube.cancelUpgrade({ ...ref, version: '4.14.1-rc.0', idempotencyKey: 'c1' }, NOW);
    expect(fake.writes()).toEqual([
      expect.objectContaining({ method: 'PATCH', path: CLUSTER_VERSION_PATH, body: { spec: { desiredUpdate: null } } }),
    ]);
    expect(fake.clusterVersion('east').spec.desiredUpdate).toBeUndefined();
    expect(fake.clusterVersion('east').spec.channel).toBe('stable-4.13');
    // nothing left to cancel
    await kube.cancelUpgrade({ ...ref, version: '4.14.1-rc.0', idempotencyKey: 'c2' }, NOW);
    expect(fake.writes()).toHaveLength(1);
  });

  it('does not cancel an update the operator has begun (clearing desiredUpdate does not roll it back)', async () => {
    const fake = await fakeCluster();
    const kube = provider(writeFile(tmpDir(), 'config', fake.kubeconfig()));
    await kube.startUpgrade({ ...ref, version: '4.13.11', at: NOW, idempotencyKey: 'k' }, NOW);
    expect(fake.writes()).toHaveLength(1);
    await kube.cancelUpgrade({ ...ref, version: '4.13.11', idempotencyKey: 'c' }, NOW);
    expect(fake.writes()).toHaveLength(1);
    expect((await kube.observeCluster(ref, NOW)).currentUpgrade).toMatchObject({ version: '4.13.11', state: 'started' });
  });

  it('switches the channel with one merge patch of spec.channel, and writes nothing when the cluster is on it', async () => {
    const fake = await fakeCluster();
    const kube = provider(writeFile(tmpDir(), 'config', fake.kubeconfig()));
    expect(await kube.setChannel!(ref, 'stable-4.13', NOW)).toBe('already-set');
    expect(fake.writes()).toEqual([]);
    expect(await kube.setChannel!(ref, 'eus-4.14', NOW)).toBe('set');
    expect(fake.writes()).toEqual([
      expect.objectContaining({ method: 'PATCH', path: CLUSTER_VERSION_PATH, body: { spec: { channel: 'eus-4.14' } } }),
    ]);
    expect((await kube.observeCluster(ref, NOW)).channel).toBe('eus-4.14');
    // a re-run after a crash reads the channel set and does not patch again
    expect(await kube.setChannel!(ref, 'eus-4.14', NOW)).toBe('already-set');
    expect(fake.writes()).toHaveLength(1);
    expect(fake.clusterVersion('east').spec.desiredUpdate).toBeUndefined();
  });

  it("a refused patch is the start's error with the API server's message (RBAC without patch)", async () => {
    const fake = await fakeCluster();
    const kube = provider(writeFile(tmpDir(), 'config', fake.kubeconfig()));
    const denied =
      'clusterversions.config.openshift.io "version" is forbidden: User "system:serviceaccount:fleetplan:reader" cannot patch resource "clusterversions" in API group "config.openshift.io" at the cluster scope';
    fake.setPathFault('east', CLUSTER_VERSION_PATH, 403, denied, 'PATCH'); // reading is allowed, patching not
    await expect(kube.startUpgrade({ ...ref, version: '4.13.11', at: NOW, idempotencyKey: 'k' }, NOW)).rejects.toMatchObject({
      status: 403,
      message: `PATCH clusterversions.config.openshift.io/version → HTTP 403: ${denied}`,
    });
    expect(fake.clusterVersion('east').spec.desiredUpdate).toBeUndefined();
  });
});

describe('Kubernetes provider: the EUS-to-EUS procedure (MachineConfigPools, admin-acks)', () => {
  const ref = { externalId: 'east', name: 'east' };
  const POOL = '/apis/machineconfiguration.openshift.io/v1/machineconfigpools';
  const ACKS = '/api/v1/namespaces/openshift-config/configmaps/admin-acks';

  it('reads the admin gates the release declares (openshift-config-managed/admin-gates); none there is none, a refused read is not read', async () => {
    const GATES = '/api/v1/namespaces/openshift-config-managed/configmaps/admin-gates';
    const fake = await fakeCluster([
      {
        name: 'east',
        version: '4.15.20',
        releases: RELEASES,
        adminGates: { 'ack-4.15-kube-1.29-api-removals-in-4.16': 'Kubernetes 1.29 …', 'ack-4.15-new-gate': 'new' },
      },
      { name: 'west', version: '4.15.20', releases: RELEASES, adminGates: null },
    ]);
    const kube = provider(writeFile(tmpDir(), 'config', fake.kubeconfig()));
    expect((await kube.observeCluster(ref, NOW)).adminGates).toEqual(['ack-4.15-kube-1.29-api-removals-in-4.16', 'ack-4.15-new-gate']);
    expect((await kube.observeCluster({ externalId: 'west', name: 'west' }, NOW)).adminGates).toEqual([]);
    fake.setPathFault('east', GATES, 403, 'configmaps "admin-gates" is forbidden');
    const refused = await kube.observeCluster(ref, NOW);
    expect(refused.adminGates).toBeUndefined();
    // the rest of the reading stands
    expect(refused.version).toBe('4.15.20');
  });

  it('reads each pool: paused, counts and Updated/Updating/Degraded; a paused pool behind the control plane is not a health issue', async () => {
    const fake = await fakeCluster([
      { name: 'east', version: '4.13.10', releases: RELEASES, pools: ['master', 'worker', 'infra'], pausedPools: ['infra'] },
    ]);
    const kube = provider(writeFile(tmpDir(), 'config', fake.kubeconfig()));
    fake.rollPool('east', 'infra', 'pending');
    fake.rollPool('east', 'worker', 'rolling');
    const snap = await kube.observeCluster(ref, NOW);
    expect(snap.machineConfigPools).toEqual([
      {
        name: 'master',
        master: true,
        paused: false,
        machineCount: 3,
        updatedMachineCount: 3,
        degradedMachineCount: 0,
        updated: true,
        updating: false,
        degraded: false,
      },
      {
        name: 'worker',
        master: false,
        paused: false,
        machineCount: 3,
        updatedMachineCount: 1,
        degradedMachineCount: 0,
        updated: false,
        updating: true,
        degraded: false,
      },
      {
        name: 'infra',
        master: false,
        paused: true,
        machineCount: 3,
        updatedMachineCount: 0,
        degradedMachineCount: 0,
        updated: false,
        updating: false,
        degraded: false,
      },
    ]);
    expect(snap.healthIssues).toEqual([]);
    fake.degradePool('east', 'worker', 'node ip-10-0-4-104 is reporting: unexpected on-disk state');
    const degraded = (await kube.observeCluster(ref, NOW)).machineConfigPools?.find((p) => p.name === 'worker');
    expect(degraded).toMatchObject({
      degraded: true,
      degradedMachineCount: 1,
      message: 'node ip-10-0-4-104 is reporting: unexpected on-disk state',
    });
  });

  it('pauses and unpauses a pool with one merge patch of spec.paused each; a pool already so is not patched again', async () => {
    const fake = await fakeCluster();
    const kube = provider(writeFile(tmpDir(), 'config', fake.kubeconfig()));
    expect(await kube.setMachineConfigPoolPaused!(ref, 'worker', false, NOW)).toBe('already-set');
    expect(fake.writes()).toEqual([]);
    expect(await kube.setMachineConfigPoolPaused!(ref, 'worker', true, NOW)).toBe('set');
    // a re-run after a crash reads the pool paused and writes nothing
    expect(await kube.setMachineConfigPoolPaused!(ref, 'worker', true, NOW)).toBe('already-set');
    expect(fake.writes()).toEqual([expect.objectContaining({ method: 'PATCH', path: `${POOL}/worker`, body: { spec: { paused: true } } })]);
    expect((fake.pool('east', 'worker').spec as { paused: boolean }).paused).toBe(true);
    expect((await kube.observeCluster(ref, NOW)).machineConfigPools?.find((p) => p.name === 'worker')?.paused).toBe(true);
    expect(await kube.setMachineConfigPoolPaused!(ref, 'worker', false, NOW)).toBe('set');
    expect(fake.writes().map((w) => w.body)).toEqual([{ spec: { paused: true } }, { spec: { paused: false } }]);
    await expect(kube.setMachineConfigPoolPaused!(ref, 'gpu', true, NOW)).rejects.toMatchObject({ status: 404 });
  });

  it('acknowledges an admin gate with one merge patch of the admin-acks ConfigMap, once', async () => {
    const fake = await fakeCluster();
    const kube = provider(writeFile(tmpDir(), 'config', fake.kubeconfig()));
    const gate = 'ack-4.15-kube-1.29-api-removals-in-4.16';
    expect(await kube.acknowledgeAdminGate!(ref, gate, NOW)).toBe('set');
    expect(await kube.acknowledgeAdminGate!(ref, gate, NOW)).toBe('already-set');
    expect(fake.writes()).toEqual([expect.objectContaining({ method: 'PATCH', path: ACKS, body: { data: { [gate]: 'true' } } })]);
    expect(fake.adminAcks('east')).toEqual({ [gate]: 'true' });
  });

  it("a refused pool patch is the write's error with the API server's message (RBAC without patch on machineconfigpools)", async () => {
    const fake = await fakeCluster();
    const kube = provider(writeFile(tmpDir(), 'config', fake.kubeconfig()));
    const denied =
      'machineconfigpools.machineconfiguration.openshift.io "worker" is forbidden: User "system:serviceaccount:fleetplan:fleetplan" cannot patch resource "machineconfigpools" in API group "machineconfiguration.openshift.io" at the cluster scope';
    fake.setPathFault('east', `${POOL}/worker`, 403, denied, 'PATCH');
    await expect(kube.setMachineConfigPoolPaused!(ref, 'worker', true, NOW)).rejects.toMatchObject({
      status: 403,
      message: `PATCH machineconfigpools.machineconfiguration.openshift.io/worker → HTTP 403: ${denied}`,
    });
    expect((fake.pool('east', 'worker').spec as { paused: boolean }).paused).toBe(false);
  });
});

describe('Kubernetes provider: operator InstallPlans', () => {
  const ref = { externalId: 'east', name: 'east' };
  const IP = '/apis/operators.coreos.com/v1alpha1/namespaces/openshift-gitops-operator/installplans/install-q8x2m';
  const withPlans = () =>
    fakeCluster([
      {
        name: 'east',
        version: '4.15.20',
        releases: RELEASES,
        installPlans: [
          {
            namespace: 'openshift-gitops-operator',
            name: 'install-q8x2m',
            subscription: 'openshift-gitops-operator',
            csv: 'openshift-gitops-operator.v1.12.1',
          },
          {
            namespace: 'openshift-operators',
            name: 'install-7hd2k',
            subscription: 'my-storage',
            package: 'local-storage-operator',
            csv: 'local-storage-operator.v4.15.0',
          },
          {
            namespace: 'openshift-logging',
            name: 'install-auto1',
            subscription: 'cluster-logging',
            csv: 'cluster-logging.v5.8.2',
            approval: 'Automatic',
            approved: true,
            phase: 'Complete',
          },
          // no Subscription owns it (its Subscription was deleted): only the plan is known
          { namespace: 'openshift-operators', name: 'install-orphan', csv: 'quay-operator.v3.10.0' },
        ],
      },
    ]);

  it('lists InstallPlans in every namespace with the Subscriptions (name and package) they belong to', async () => {
    const fake = await withPlans();
    const plans = await provider(writeFile(tmpDir(), 'config', fake.kubeconfig())).listInstallPlans!(ref, NOW);
    expect(plans).toEqual([
      {
        namespace: 'openshift-gitops-operator',
        name: 'install-q8x2m',
        approval: 'Manual',
        approved: false,
        phase: 'RequiresApproval',
        csvNames: ['openshift-gitops-operator.v1.12.1'],
        subscriptions: [
          { namespace: 'openshift-gitops-operator', name: 'openshift-gitops-operator', package: 'openshift-gitops-operator' },
        ],
      },
      {
        namespace: 'openshift-operators',
        name: 'install-7hd2k',
        approval: 'Manual',
        approved: false,
        phase: 'RequiresApproval',
        csvNames: ['local-storage-operator.v4.15.0'],
        subscriptions: [{ namespace: 'openshift-operators', name: 'my-storage', package: 'local-storage-operator' }],
      },
      {
        namespace: 'openshift-logging',
        name: 'install-auto1',
        approval: 'Automatic',
        approved: true,
        phase: 'Complete',
        csvNames: ['cluster-logging.v5.8.2'],
        subscriptions: [{ namespace: 'openshift-logging', name: 'cluster-logging', package: 'cluster-logging' }],
      },
      {
        namespace: 'openshift-operators',
        name: 'install-orphan',
        approval: 'Manual',
        approved: false,
        phase: 'RequiresApproval',
        csvNames: ['quay-operator.v3.10.0'],
        subscriptions: [],
      },
    ]);
    // reads only: GETs of the two lists
    expect(fake.writes()).toEqual([]);
    expect(fake.requests('east').map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /apis/operators.coreos.com/v1alpha1/installplans',
      'GET /apis/operators.coreos.com/v1alpha1/subscriptions',
    ]);
  });

  it('approves by a merge patch of spec.approved, once: an approved plan is not patched again', async () => {
    const fake = await withPlans();
    const kube = provider(writeFile(tmpDir(), 'config', fake.kubeconfig()));
    const req = { ...ref, namespace: 'openshift-gitops-operator', installPlan: 'install-q8x2m', idempotencyKey: '3:approve:x' };
    expect(await kube.approveInstallPlan!(req, NOW)).toBe('approved');
    // the resourceVersion read is the patch's precondition (fixtures/installplan.json)
    expect(fake.writes()).toEqual([
      expect.objectContaining({ method: 'PATCH', path: IP, body: { metadata: { resourceVersion: '734120' }, spec: { approved: true } } }),
    ]);
    expect(fake.installPlan('east', 'openshift-gitops-operator', 'install-q8x2m')).toMatchObject({
      spec: { approved: true, approval: 'Manual' },
      status: { phase: 'Installing' },
    });
    expect(await kube.approveInstallPlan!(req, NOW)).toBe('already-approved');
    expect(fake.writes()).toHaveLength(1);
    fake.completeInstallPlan('east', 'openshift-gitops-operator', 'install-q8x2m');
    const plans = await kube.listInstallPlans!(ref, NOW);
    expect(plans[0]).toMatchObject({ approved: true, phase: 'Complete' });
  });

  it('writes nothing when the plan changed since it was read (409 Conflict); the next call reads it again', async () => {
    const fake = await withPlans();
    const kube = provider(writeFile(tmpDir(), 'config', fake.kubeconfig()));
    const req = { ...ref, namespace: 'openshift-gitops-operator', installPlan: 'install-q8x2m', idempotencyKey: '3:approve:x' };
    // OLM rewrites the plan's status between our read and our patch
    let touched = 0;
    fake.onRead((r) => {
      if (r.path !== IP || touched++ > 0) return;
      fake.changeInstallPlan('east', 'openshift-gitops-operator', 'install-q8x2m', { phase: 'RequiresApproval' });
    });
    expect(await kube.approveInstallPlan!(req, NOW)).toBe('changed-since-read');
    expect(fake.writes()).toEqual([]);
    expect(fake.installPlan('east', 'openshift-gitops-operator', 'install-q8x2m')).toMatchObject({ spec: { approved: false } });
    // the next tick: read again, approved with the new resourceVersion
    expect(await kube.approveInstallPlan!(req, NOW)).toBe('approved');
    expect(fake.writes()).toEqual([
      expect.objectContaining({ method: 'PATCH', path: IP, body: { metadata: { resourceVersion: '734121' }, spec: { approved: true } } }),
    ]);
    expect(fake.requests('east').map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${IP}`, `PATCH ${IP}`, `GET ${IP}`, `PATCH ${IP}`]);
  });

  it('someone approving the plan by hand between our read and our patch: not approved twice', async () => {
    const fake = await withPlans();
    const kube = provider(writeFile(tmpDir(), 'config', fake.kubeconfig()));
    const req = { ...ref, namespace: 'openshift-gitops-operator', installPlan: 'install-q8x2m', idempotencyKey: '3:approve:x' };
    fake.onRead((r) => {
      if (r.path === IP) fake.changeInstallPlan('east', 'openshift-gitops-operator', 'install-q8x2m', { approved: true });
    });
    expect(await kube.approveInstallPlan!(req, NOW)).toBe('changed-since-read');
    fake.onRead(null);
    expect(await kube.approveInstallPlan!(req, NOW)).toBe('already-approved');
    expect(fake.writes()).toEqual([]);
  });

  it("the fake's conflict is the API server's Status (reason Conflict, details of the object)", async () => {
    // over plain HTTP (no client TLS set-up needed for a bare request)
    const fake = await startFakeOpenShift({
      clusters: [
        {
          name: 'east',
          version: '4.15.20',
          releases: RELEASES,
          installPlans: [{ namespace: 'openshift-gitops-operator', name: 'install-q8x2m', csv: 'x.v1' }],
        },
      ],
      now: () => NOW,
    });
    cleanup.push(() => fake.close());
    const res = await fetch(`${fake.url}/clusters/east${IP}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${fake.token}`, 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ metadata: { resourceVersion: '1' }, spec: { approved: true } }),
    });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'Operation cannot be fulfilled on installplans.operators.coreos.com "install-q8x2m": the object has been modified; please apply your changes to the latest version and try again',
      reason: 'Conflict',
      details: { name: 'install-q8x2m', group: 'operators.coreos.com', kind: 'installplans' },
      code: 409,
    });
    expect(fake.writes()).toEqual([]);
  });

  it("reads a failed plan's Installed condition message", async () => {
    const fake = await withPlans();
    const kube = provider(writeFile(tmpDir(), 'config', fake.kubeconfig()));
    fake.failInstallPlan('east', 'openshift-gitops-operator', 'install-q8x2m', 'error validating existing CRs against new CRD schema');
    expect((await kube.listInstallPlans!(ref, NOW))[0]).toMatchObject({
      phase: 'Failed',
      message: 'error validating existing CRs against new CRD schema',
    });
  });

  it("a refused patch is the approval's error with the API server's message; nothing changed", async () => {
    const fake = await withPlans();
    const kube = provider(writeFile(tmpDir(), 'config', fake.kubeconfig()));
    const denied =
      'installplans.operators.coreos.com "install-q8x2m" is forbidden: User "system:serviceaccount:fleetplan:reader" cannot patch resource "installplans" in API group "operators.coreos.com" in the namespace "openshift-gitops-operator"';
    fake.setPathFault('east', IP, 403, denied, 'PATCH');
    await expect(
      kube.approveInstallPlan!({ ...ref, namespace: 'openshift-gitops-operator', installPlan: 'install-q8x2m', idempotencyKey: 'k' }, NOW),
    ).rejects.toMatchObject({
      status: 403,
      message: `PATCH installplans.operators.coreos.com openshift-gitops-operator/install-q8x2m → HTTP 403: ${denied}`,
    });
    expect(fake.installPlan('east', 'openshift-gitops-operator', 'install-q8x2m')).toMatchObject({ spec: { approved: false } });
    await expect(
      kube.approveInstallPlan!({ ...ref, namespace: 'openshift-gitops-operator', installPlan: 'gone', idempotencyKey: 'k' }, NOW),
    ).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining('installplans.operators.coreos.com "gone" not found') as unknown,
    });
  });

  it('a cluster without OLM has no InstallPlans (404: not installed); a forbidden list is an error', async () => {
    const plain = await fakeCluster([{ name: 'east', version: '4.15.20', releases: RELEASES, olm: false }]);
    expect(await provider(writeFile(tmpDir(), 'config', plain.kubeconfig())).listInstallPlans!(ref, NOW)).toEqual([]);
    const fake = await withPlans();
    fake.setPathFault('east', '/apis/operators.coreos.com/v1alpha1/subscriptions', 403, 'subscriptions is forbidden');
    await expect(provider(writeFile(tmpDir(), 'config', fake.kubeconfig())).listInstallPlans!(ref, NOW)).rejects.toMatchObject({
      status: 403,
      message: 'GET subscriptions.operators.coreos.com → HTTP 403: subscriptions is forbidden',
    });
  });
});

describe('kubeconfig loading', () => {
  it('throws only when no file can be read at all', () => {
    expect(() => loadKubeconfig('/nonexistent/kubeconfig')).toThrow(
      /cannot read the kubeconfig: \/nonexistent\/kubeconfig: cannot read the file \(ENOENT\)/,
    );
  });
});
