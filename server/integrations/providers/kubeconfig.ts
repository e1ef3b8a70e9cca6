/**
 * A kubeconfig read into one @kubernetes/client-node `KubeConfig` per context, each context on its
 * own: one that cannot be used (its cluster or user missing, a certificate file unreadable, an
 * invalid entry) is reported with the reason and the others are still read.
 *
 * client-node does the authentication (bearer tokens, client certificates from files or inline
 * data, exec plugins with their ExecCredential caching, OIDC and the legacy auth providers, basic
 * auth, impersonation), TLS (CA file or data, insecure-skip-tls-verify, tls-server-name) and
 * proxy-url (HTTP(S) and SOCKS). What this file adds, each where client-node differs from kubectl
 * (client-go), because fleetplan reads kubeconfigs written for kubectl:
 * - each context is loaded separately (client-node loads a whole file or refuses it);
 * - `tokenFile` (client-go's field name; client-node knows only `token-file`, also accepted) is
 *   read at every request and trimmed, as client-go's cached file token source reads a rotating
 *   projected token (client-node reads it once, untrimmed: a trailing newline breaks the header);
 * - relative paths (certificate-authority, client-certificate, client-key, tokenFile and an exec
 *   command containing a `/`) are relative to the kubeconfig file that names them, as client-go's
 *   ResolvePaths does; client-node resolves only the first three;
 * - exec plugins get KUBERNETES_EXEC_INFO (non-interactive), which client-go always sets, and a
 *   time limit (client-node waits for them forever; a login waiting for a browser would leave one
 *   process behind per tick);
 * - a plain `http://` server is allowed (client-node refuses it unless insecure-skip-tls-verify
 *   is set; there is no TLS to verify; e.g. `kubectl proxy`);
 * - several files (`KUBECONFIG=a:b`) merge with the first file winning for a name, as in client-go.
 *
 * Labels: a context may carry `extensions: [{name: fleetplan, extension: {labels: {key: value}}}]`
 * (kubeconfig's NamedExtension, ignored by kubectl); they become the cluster's discovery labels.
 */
import { spawn, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parse as parseYaml, YAMLError } from 'yaml';
import { errorMessage } from './map-settled';

/**
 * Why a kubeconfig file could not be read, without its contents: a YAML error's message quotes
 * the offending line, which may hold a token or a key, and this message reaches tick rows, the
 * log and the Set-up page. Only the position and the kind of error are kept.
 */
export function describeReadError(err: unknown): string {
  if (err instanceof YAMLError) {
    const at = err.linePos?.[0];
    return `not valid YAML (${err.code}${at ? ` at line ${at.line}, column ${at.col}` : ''})`;
  }
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code ? `cannot read the file (${code})` : 'cannot read the file';
}

/** the context extension fleetplan reads its per-cluster settings (labels) from */
export const FLEETPLAN_EXTENSION = 'fleetplan';
/** an exec credential plugin that has not answered by then is stopped */
export const DEFAULT_EXEC_TIMEOUT_MS = 30_000;

export interface LoadOptions {
  /** exec credential plugins' time limit (default DEFAULT_EXEC_TIMEOUT_MS) */
  execTimeoutMs?: number;
}

export interface LoadedContext {
  name: string;
  /** the API server URL (when the context names a cluster that has one) */
  server?: string;
  /** absent when the context cannot be used; then `error` says why */
  kubeConfig?: KubeConfig;
  error?: string;
  /** from the context's `fleetplan` extension */
  labels: Record<string, string>;
}

type Raw = Record<string, unknown>;
interface Named {
  item: Raw;
  /** directory of the file the entry came from: relative paths in it start there */
  dir: string;
}

const isRecord = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * KubeConfigs already built, by context and file set: reused while the context's definition is
 * unchanged, so an exec plugin's credential (cached by client-node until its expirationTimestamp)
 * and refreshed OIDC tokens survive the per-tick rebuild of the provider.
 */
const built = new Map<string, { fingerprint: string; kubeConfig: KubeConfig }>();
const MAX_BUILT = 512;

/** The files of a kubeconfig setting: one path, or several joined with the path delimiter (`KUBECONFIG=a:b`). */
export function kubeconfigFiles(setting: string): string[] {
  return setting.split(path.delimiter).filter((f) => f.trim() !== '');
}

/**
 * Reads the kubeconfig file(s) and builds each context (`only`: just these, in this order; a name
 * not in the files is an error entry). Throws only when no file can be read or parsed at all.
 */
export function loadKubeconfig(setting: string, only?: readonly string[], opts: LoadOptions = {}): LoadedContext[] {
  const clusters = new Map<string, Named>();
  const users = new Map<string, Named>();
  const contexts = new Map<string, Named>();
  const problems: string[] = [];
  let readable = 0;
  const files = kubeconfigFiles(setting);
  for (const file of files) {
    let doc: unknown;
    try {
      doc = parseYaml(fs.readFileSync(file, 'utf8'));
      readable++;
    } catch (err) {
      problems.push(`${file}: ${describeReadError(err)}`);
      continue;
    }
    if (!isRecord(doc)) continue;
    const dir = path.dirname(path.resolve(file));
    const collect = (list: unknown, into: Map<string, Named>) => {
      if (!Array.isArray(list)) return;
      for (const item of list) {
        const name = isRecord(item) ? str(item.name) : undefined;
        if (isRecord(item) && name && !into.has(name)) into.set(name, { item, dir }); // the first file wins
      }
    };
    collect(doc.clusters, clusters);
    collect(doc.users, users);
    collect(doc.contexts, contexts);
  }
  if (readable === 0) throw new Error(`cannot read the kubeconfig: ${problems.join('; ') || 'no file given'}`);
  const names = only && only.length ? [...only] : [...contexts.keys()];
  const fileKey = files.map((f) => path.resolve(f)).join(path.delimiter);
  if (built.size > MAX_BUILT) built.clear();
  return names.map((name) => {
    const ctx = contexts.get(name);
    if (!ctx) return { name, labels: {}, error: `no context ${name} in the kubeconfig` };
    try {
      return buildContext(name, ctx, clusters, users, fileKey, opts.execTimeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS);
    } catch (err) {
      return { name, labels: labelsOf(ctx.item), error: `kubeconfig context ${name}: ${errorMessage(err)}` };
    }
  });
}

function labelsOf(ctx: Raw): Record<string, string> {
  const body = isRecord(ctx.context) ? ctx.context : {};
  const extensions: unknown[] = Array.isArray(body.extensions) ? body.extensions : [];
  const ext = extensions.find((e) => isRecord(e) && e.name === FLEETPLAN_EXTENSION);
  const labels = isRecord(ext) && isRecord(ext.extension) && isRecord(ext.extension.labels) ? ext.extension.labels : {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels))
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
  return out;
}

function resolveIn(dir: string, file: unknown): string | undefined {
  const f = str(file);
  return f === undefined ? undefined : path.isAbsolute(f) ? f : path.join(dir, f);
}

function buildContext(
  name: string,
  ctx: Named,
  clusters: Map<string, Named>,
  users: Map<string, Named>,
  fileKey: string,
  execTimeoutMs: number,
): LoadedContext {
  const labels = labelsOf(ctx.item);
  const body = isRecord(ctx.item.context) ? ctx.item.context : {};
  const clusterName = str(body.cluster);
  if (!clusterName) throw new Error('names no cluster');
  const cluster = clusters.get(clusterName);
  if (!cluster || !isRecord(cluster.item.cluster)) throw new Error(`no cluster ${clusterName} in the kubeconfig`);
  const userName = str(body.user);
  const user = userName === undefined ? undefined : users.get(userName);
  if (userName !== undefined && (!user || !isRecord(user.item.user))) throw new Error(`no user ${userName} in the kubeconfig`);

  const clusterBody: Raw = { ...cluster.item.cluster };
  const server = str(clusterBody.server);
  if (!server) throw new Error(`cluster ${clusterName} has no server`);
  const ca = resolveIn(cluster.dir, clusterBody['certificate-authority']);
  if (ca) clusterBody['certificate-authority'] = ca;
  // client-node refuses http:// unless insecure-skip-tls-verify is set; plain HTTP has no TLS to skip
  if (server.startsWith('http:')) clusterBody['insecure-skip-tls-verify'] = true;

  let tokenFile: string | undefined;
  let userBody: Raw | undefined;
  if (user && isRecord(user.item.user)) {
    userBody = { ...user.item.user };
    for (const key of ['client-certificate', 'client-key'] as const) {
      const f = resolveIn(user.dir, userBody[key]);
      if (f) userBody[key] = f;
    }
    // client-go's field is `tokenFile`; client-node reads only `token-file` (accepted too). A token
    // wins over the file; the file is ours to read (see tokenFileAuthenticator).
    if (!str(userBody.token)) tokenFile = resolveIn(user.dir, userBody.tokenFile ?? userBody['token-file']);
    delete userBody.tokenFile;
    delete userBody['token-file'];
    if (isRecord(userBody.exec)) {
      const exec: Raw = { ...userBody.exec };
      const command = str(exec.command);
      if (command && command.includes('/')) exec.command = resolveIn(user.dir, command);
      const env = Array.isArray(exec.env) ? exec.env.filter(isRecord) : [];
      if (!env.some((e) => e.name === 'KUBERNETES_EXEC_INFO'))
        env.push({
          name: 'KUBERNETES_EXEC_INFO',
          value: JSON.stringify({
            apiVersion: str(exec.apiVersion) ?? 'client.authentication.k8s.io/v1',
            kind: 'ExecCredential',
            spec: { interactive: false },
          }),
        });
      exec.env = env;
      userBody.exec = exec;
    }
  }
  const mini = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: clusterName, cluster: clusterBody }],
    users: userBody && userName ? [{ name: userName, user: userBody }] : [],
    contexts: [{ name, context: { cluster: clusterName, ...(userName ? { user: userName } : {}) } }],
    'current-context': name,
  };
  // Files are read by client-node at each request; read them once here so a missing or unreadable
  // one is this context's load error, naming the file, rather than a request failure later.
  for (const f of [ca, str(userBody?.['client-certificate']), str(userBody?.['client-key']), tokenFile])
    if (f) fs.accessSync(f, fs.constants.R_OK);
  if (tokenFile && fs.readFileSync(tokenFile, 'utf8').trim() === '') throw new Error(`token file ${tokenFile} is empty`);

  const key = `${fileKey}\0${name}`;
  const fingerprint = JSON.stringify([mini, tokenFile ?? null, execTimeoutMs]);
  const cached = built.get(key);
  if (cached && cached.fingerprint === fingerprint) return { name, server, kubeConfig: cached.kubeConfig, labels };
  const kubeConfig = new KubeConfig();
  // JSON is YAML: client-node parses it with its own loader, which also validates the entries
  kubeConfig.loadFromString(JSON.stringify(mini));
  if (tokenFile && userName) kubeConfig.addAuthenticator(tokenFileAuthenticator(userName, tokenFile));
  limitExecPlugins(kubeConfig, execTimeoutMs);
  built.set(key, { fingerprint, kubeConfig });
  return { name, server, kubeConfig, labels };
}

type Authenticator = Parameters<KubeConfig['addAuthenticator']>[0];

/**
 * Bearer token from `token-file`, read at each request (a projected service-account token rotates
 * on disk) and trimmed. Consulted by client-node only when no built-in authenticator claims the
 * user, which holds: the user has no token, exec or auth-provider left once token-file is taken out.
 */
function tokenFileAuthenticator(userName: string, file: string): Authenticator {
  return {
    isAuthProvider: (user) => user.name === userName,
    // client-node passes https.RequestOptions here (its declared union with ws' ClientOptions does
    // not resolve without @types/ws); only `headers` is touched
    async applyAuthentication(_user, opts: { headers?: unknown }) {
      const token = (await fs.promises.readFile(file, 'utf8')).trim();
      if (!token) throw new Error(`token file ${file} is empty`);
      opts.headers = { ...(isRecord(opts.headers) ? opts.headers : {}), Authorization: `Bearer ${token}` };
    },
  };
}

/**
 * Puts a time limit on client-node's exec credential plugins. Its ExecAuth runs the plugin through
 * its `execFn` (child_process.spawn), with no limit and no way to pass one; the wrapper stops a
 * plugin still running after `timeoutMs` and hands ExecAuth an error saying so (ExecAuth rejects
 * with the child's 'error' when there was one). `authenticators` is private in client-node's
 * types, hence the reflection; the dependency is pinned, and the exec test fails if this stops
 * finding it.
 */
function limitExecPlugins(kubeConfig: KubeConfig, timeoutMs: number): void {
  const authenticators: unknown = Reflect.get(kubeConfig, 'authenticators');
  if (!Array.isArray(authenticators)) return;
  for (const auth of authenticators as unknown[]) {
    if (!isRecord(auth) || typeof auth.execFn !== 'function') continue;
    auth.execFn = (command: string, args: readonly string[] | undefined, options: SpawnOptions) => {
      const child = spawn(command, args ?? [], options);
      const timer = setTimeout(() => {
        child.emit('error', new Error(`exec credential plugin ${command} gave no credential within ${timeoutMs} ms`));
        child.kill('SIGKILL');
      }, timeoutMs);
      child.once('exit', () => clearTimeout(timer));
      return child;
    };
  }
}
