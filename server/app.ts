import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import express, { type Request, type Response, type NextFunction } from 'express';
import helmet from 'helmet';
import { Server } from 'socket.io';
import type { Logger } from 'pino';
import { openStore, type Store } from '../lib/storage';
import { openPseudonymKey } from '../lib/pseudonym';
import { loadConfig, type LoadedConfig } from '../lib/studyFiles/studyConfig';
import type { ServiceContext } from './services/serviceContext';
import { DEFAULT_STORAGE_POLICY, type StoragePolicy } from './services/storagePolicy';
import { ParticipantService } from './services/participants';
import { providerResolver } from './services/providers';
import { recoverInterruptedReplies } from './services/recovery';
import { aloneOnStore, coordinationFromEnv, type Coordination } from './cluster/coordination';
import type { LlmProvider } from '../lib/llm/provider';
import { ProviderThread } from '../lib/llm/providerThread/providerThread';
import { openaiApiKey, type ProviderConfig } from '../lib/llm/createProvider';
import type { OfflineProviderOptions } from '../lib/llm/offlineProvider';
import type { Condition } from '../common/study';
import type { StudyStatus } from '../common/http';
import { attachParticipantSockets, type ParticipantServer } from './socket/handlers';
import { liveSessions } from './socket/liveSessions';
import { otherTabsMayListen, sessionPush } from './socket/sessionPush';
import { participantRoutes } from './http/participantRoutes';
import { finalErrorHandler } from './http/errorHandler';
import { handshakeOriginAllowed, type TrustProxyFn } from './socket/origin';
import { createLogger } from '../lib/logger';
import { conditionProvidersOf, studyChecksOf, type PluginHost, type ServerPlugin } from './plugins';
import { DEFAULT_TRUST_PROXY, TrustProxySetting, type TrustProxy } from './trustProxy';
import type { ClusterOptions } from './cluster/clusterOptions';
import { nodeIdFromEnv } from './cluster/nodeIdentity';
import { openSocketAdapter, type SocketAdapterHandle } from './cluster/socketAdapter';
import { openRateLimitStores, type RateLimitStores } from './cluster/rateLimitStore';
import { healthRoutes } from './http/health';
import { checkPreregistrationsAtStart } from '../lib/preregistration';
import { attachGroupRuntime, type GroupRuntime } from './groups/runtime';
import type { GroupTimings } from './groups/groupContext';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface StartServerOptions {
  /** Where the SQLite file (tandem.sqlite, unless databaseUrl is given), uploads and the pseudonym key live. Created if missing. */
  dataDir: string;
  /** postgres://… selects the PostgreSQL store (main.ts passes DATABASE_URL); otherwise SQLite in dataDir. */
  databaseUrl?: string | undefined;
  /** 0 = a random free port. Default 3000. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default <repo>/studies and <repo>/surveys. */
  studiesDir?: string;
  surveysDir?: string;
  /** The built client (vite). Default <repo>/dist/client. */
  clientDir?: string;
  /** Builds the provider for a condition; replaces the default (createProvider: openai, or offline without a key). */
  providerFactory?: (condition: Condition) => LlmProvider;
  /** Overrides for 'openai' conditions, e.g. { baseURL: fake.url, apiKey: 'test', backoffBaseMs: 10 }. */
  openai?: Omit<ProviderConfig, 'provider' | 'offline'>;
  /** Options for the offline demo assistant. */
  offline?: OfflineProviderOptions;
  /** Shortcut for offline.firstTokenDelayMs (tests set 0). */
  offlineReplyDelayMs?: number;
  /** Environment for provider resolution (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Status given to a study the first time it is loaded (default 'live'); later the admin side manages it. */
  initialStudyStatus?: StudyStatus;
  /** Upper bound for one assistant reply (default 5 min). */
  replyTimeoutMs?: number;
  /** How often the time-limit sweep ends overdue sessions (default 1000 ms; tests of the per-socket timer set it long). */
  timeLimitSweepMs?: number;
  /**
   * Run OpenAI-compatible chat calls on a worker thread (default false: on the event loop). The thread
   * takes stream parsing off the event loop, but on a small machine its hop costs more latency than it
   * saves (BENCHMARKS.md); it may pay where the server has cores of its own to spare.
   */
  providerThread?: boolean;
  /**
   * express's 'trust proxy' (which hops may set X-Forwarded-For, hence req.ip for rate limits and logs).
   * Default 'loopback'. A string is validated like TRUST_PROXY (see server/trustProxy.ts); bad → throws.
   */
  trustProxy?: TrustProxy;
  /**
   * Per-session storage budget and draft-event interval (default DEFAULT_STORAGE_POLICY; main.ts reads
   * SESSION_STORAGE_BUDGET_MB and DRAFT_EVENT_INTERVAL_SECONDS).
   */
  storage?: Partial<StoragePolicy>;
  /** POST /api/join per IP per minute (default 60). */
  joinRateLimitPerMinute?: number;
  /** POST /api/join/resume (resume-code attempts) per IP per 15 minutes (default 10). */
  resumeAttemptsPer15Min?: number;
  /**
   * How this node reaches the other nodes (main.ts: REDIS_URL, SOCKET_ADAPTER; server/cluster/clusterOptions.ts).
   * Default: no adapter, in-process rate limits (a single node).
   */
  cluster?: ClusterOptions;
  /** This node's name for /healthz and logs (default nodeIdFromEnv: TANDEM_NODE_ID or host:pid:random). */
  nodeId?: string;
  logger?: Logger;
  /** Node name and lease timings (default from TANDEM_NODE_ID, TANDEM_LEASE_TTL_MS, … in process.env; cluster/coordination.ts). */
  coordination?: Partial<Coordination>;
  /** Clock and randomness (assignment ties), injectable for tests. */
  now?: () => number;
  rng?: () => number;
  /** Group sessions' sweep interval (lobby timeouts, dropouts, idle agents); default 1 s. */
  groups?: Partial<GroupTimings>;
  /**
   * What the runtime runs without owning it: the Wizard-of-Oz desk, the researcher side, the teamwork seat
   * (wiring/plugins.ts registers them all; none: a participant-only server).
   */
  plugins?: readonly ServerPlugin[];
}

export interface RunningServer {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  /** This node's name in the cluster (GET /healthz reports it). */
  nodeId: string;
  /** Which socket.io adapter links this node to the others ('none' on a single node). */
  adapterKind: SocketAdapterHandle['kind'];
  store: Store;
  config: LoadedConfig;
  participants: ParticipantService;
  io: ParticipantServer;
  /** Group sessions (server/groups/): lobby, room, presence, agents. */
  groups: GroupRuntime;
  /** Stops accepting connections, ends replies in flight (stored as stopped), closes the database. */
  close(): Promise<void>;
}

/**
 * Starts the participant runtime: validates studies/surveys (a bad file throws ConfigError before anything
 * listens), opens and migrates the database, serves the participant API + sockets, mounts the plug-ins it is
 * given (server/plugins.ts; wiring/startTandem.ts starts the whole platform with all of them), and the built
 * client with SPA fallback for /study/:id and /admin/*.
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const log = options.logger ?? createLogger();
  const trustProxy = resolveTrustProxy(options.trustProxy);
  const plugins = options.plugins ?? [];
  const config = loadConfig(
    {
      studiesDir: options.studiesDir ?? path.join(ROOT, 'studies'),
      surveysDir: options.surveysDir ?? path.join(ROOT, 'surveys'),
    },
    studyChecksOf(plugins),
  );
  const dataDir = path.resolve(options.dataDir);
  ensurePrivateDataDir(dataDir, log);
  // The node's name and lease timings are the process's (TANDEM_NODE_ID, TANDEM_LEASE_*), whatever `env` the
  // providers get (tests pass a bare one).
  const nodeId = options.nodeId ?? nodeIdFromEnv(process.env);
  const store = await openStore({ dataDir, databaseUrl: options.databaseUrl });
  const now = options.now ?? Date.now;
  let adapter: SocketAdapterHandle | undefined;
  let rateLimits: RateLimitStores | undefined;
  let coordination: Coordination;
  let pseudonymKey: Buffer;
  try {
    pseudonymKey = await openPseudonymKey(store, dataDir, now()); // a DATA_DIR without this database's key stops here (lib/pseudonym.ts)
    // A node alone on its store (SQLite, or PostgreSQL without a node name) takes over every earlier process's
    // replies at once; a named node only its own previous run's and those whose lease expired.
    coordination = coordinationFromEnv(process.env, {
      owner: { node: nodeId, incarnation: crypto.randomUUID() },
      singleNode: aloneOnStore(store.engine, process.env) && (store.engine === 'sqlite' || options.nodeId === undefined),
      ...options.coordination,
    });
    log.info({ node: coordination.owner.node, singleNode: coordination.singleNode }, coordination.singleNode ? 'the only node on this store (set TANDEM_NODE_ID on every node of a cluster)' : 'cluster node');
    // A bad REDIS_URL fails here, before anything listens (main.ts prints the one line).
    const cluster = options.cluster ?? { adapter: 'none' };
    adapter = await openSocketAdapter(cluster, options.databaseUrl, log);
    rateLimits = await openRateLimitStores(cluster.redisUrl, log);
    for (const study of config.studies.values())
      await store.studies.upsertLoaded(study.id, study.title, study.definitionHash, options.initialStudyStatus ?? 'live', now());

    // Pre-registration: what changed since each study's lock is recorded before the first new session is served.
    await checkPreregistrationsAtStart(store, config, { now: now(), log });

    const recovered = await recoverInterruptedReplies(store, config, coordination, now());
    if (recovered > 0) log.warn({ recovered }, 'stored replies cut by a previous crash as interrupted');
  } catch (err) {
    await rateLimits?.close();
    await adapter?.close();
    await store.close();
    throw err;
  }
  // SQLite: WAL checkpoints (the only fsyncs with synchronous=NORMAL) run on a worker, not inside a participant's commit.
  const walCheckpointer = store.startMaintenance(log);

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxy);
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: { 'img-src': ["'self'", 'data:', 'blob:'], 'upgrade-insecure-requests': null },
      },
    }),
  );
  const httpServer = http.createServer(app);
  const io: ParticipantServer = new Server(httpServer, {
    maxHttpBufferSize: 1_000_000,
    serveClient: false,
    allowRequest: (req, callback) => callback(null, handshakeOriginAllowed(req, app.get('trust proxy fn') as TrustProxyFn)),
    // The cluster adapter (rooms span nodes) and, with Redis, connection-state recovery.
    ...adapter.serverOptions,
  });
  // Before the request log: the load balancer polls it every few seconds.
  app.use(healthRoutes({ nodeId, store, adapter, namespace: () => io.of('/') }));
  app.use(requestLog(log));

  const providerThread = options.providerThread === true ? new ProviderThread(log) : undefined;
  // Load the worker at start-up when a condition will use it, so that the first reply does not wait for it.
  const usesOpenAI = [...config.studies.values()].some((study) => study.conditions.some((c) => c.provider === 'openai'));
  if (providerThread && !options.providerFactory && usesOpenAI && openaiApiKey(options.openai ?? {}, options.env ?? process.env) !== '')
    await providerThread.warmUp();
  const offline: OfflineProviderOptions = { ...(options.offline ?? {}) };
  if (options.offlineReplyDelayMs !== undefined) offline.firstTokenDelayMs = options.offlineReplyDelayMs;
  const providers = providerResolver({
    ...(options.providerFactory ? { factory: options.providerFactory } : {}),
    ...(options.openai ? { openai: options.openai } : {}),
    offline,
    ...(options.env ? { env: options.env } : {}),
    ...(providerThread ? { thread: providerThread } : {}),
    conditionProviders: conditionProvidersOf(plugins),
    replyCache: () => store.openReplyCache(),
    logger: log,
  });
  const ctx: ServiceContext = {
    store,
    config,
    dataDir,
    pseudonymKey,
    now,
    rng: options.rng ?? Math.random,
    storage: { ...DEFAULT_STORAGE_POLICY, ...options.storage },
    log,
    providers,
    push: sessionPush(io, adapter.kind),
  };
  const participants = new ParticipantService(ctx, {
    coordination,
    ...(options.replyTimeoutMs !== undefined ? { replyTimeoutMs: options.replyTimeoutMs } : {}),
    ...(options.timeLimitSweepMs !== undefined ? { timeLimitSweepMs: options.timeLimitSweepMs } : {}),
  });
  attachParticipantSockets(io, participants, rateLimits, log, otherTabsMayListen(io, adapter.kind));
  const groups = attachGroupRuntime(io as unknown as Server, ctx, log, options.groups);
  const live = liveSessions(io, participants.chat, log);
  ctx.sessionSockets = live;
  app.use(
    participantRoutes(ctx, log, {
      ...(options.joinRateLimitPerMinute !== undefined ? { joinRateLimitPerMinute: options.joinRateLimitPerMinute } : {}),
      ...(options.resumeAttemptsPer15Min !== undefined ? { resumeAttemptsPer15Min: options.resumeAttemptsPer15Min } : {}),
      rateLimitStore: rateLimits.create,
    }),
  );
  // Plug-ins (the admin side, the wizard) own /api/admin/* only: they get their own sub-app that sees no other
  // path, so a catch-all guard in a plug-in can never shadow the participant API or the client.
  const adminApp = express();
  adminApp.disable('x-powered-by');
  adminApp.set('trust proxy', app.get('trust proxy'));
  app.use((req, res, next) => (req.path === '/api/admin' || req.path.startsWith('/api/admin/') ? adminApp(req, res, next) : next()));
  const pluginHost: PluginHost = { adminApp, io: io as unknown as Server, ctx, store, config, dataDir, log, now, chat: participants.chat, liveSessions: live, rateLimits, nodeOwner: coordination.owner, groups };
  for (const plugin of plugins) await plugin.mount?.(pluginHost);
  if (plugins.length > 0) log.info({ plugins: plugins.map((p) => p.name) }, 'plug-ins mounted');
  app.use('/api', (_req, res) => {
    res.status(404).json({ ok: false, error: { code: 'not_found', message: 'no such API route' } });
  });
  serveClient(app, options.clientDir ?? path.join(ROOT, 'dist', 'client'));
  app.use(finalErrorHandler(log));

  try {
    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(options.port ?? 3000, options.host ?? '127.0.0.1', () => {
        httpServer.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    // e.g. EADDRINUSE: leave nothing running behind the error.
    await groups.stop();
    await participants.chat.shutdown();
    await providerThread?.close();
    await new Promise<void>((resolve) => io.close(() => resolve()));
    await adapter.close();
    await rateLimits.close();
    await providers.close();
    await walCheckpointer.stop();
    await store.close();
    throw err;
  }
  const address = httpServer.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host === '0.0.0.0' || host === '[::]' ? 'localhost' : host}:${address.port}`;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await groups.stop();
      await participants.chat.shutdown();
      await providerThread?.close();
      await new Promise<void>((resolve) => io.close(() => resolve()));
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
      await adapter.close();
      await rateLimits.close();
      // The seat's reply cache, once no reply runs (on SQLite its own file handle beside the database).
      await providers.close();
      await walCheckpointer.stop();
      await store.close();
    })());

  log.info({ node: nodeId, adapter: adapter.kind, sharedRateLimits: rateLimits.shared }, 'node started');
  return { url, port: address.port, nodeId, adapterKind: adapter.kind, store, config, participants, io, groups, close };
}

/**
 * The data folder holds the identity table, uploads and the pseudonym key: created owner-only (0700).
 * An existing folder that others can read is left as the operator made it, with a warning.
 */
function ensurePrivateDataDir(dataDir: string, log: Logger): void {
  if (!fs.existsSync(dataDir)) {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dataDir, 0o700); // mkdir's mode is masked by the umask
    return;
  }
  if (process.platform !== 'win32' && (fs.statSync(dataDir).mode & 0o077) !== 0)
    log.warn({ dataDir }, 'the data folder is readable by other users of this machine; it holds participant identities (chmod 700 it)');
}

/** Serves the built client; /, /study/:id and /admin/* get index.html (client-side routing). */
function serveClient(app: express.Express, clientDir: string): void {
  const index = path.join(clientDir, 'index.html');
  app.use(express.static(clientDir, { index: false, fallthrough: true }));
  app.get(['/', '/study/:id', '/admin', '/admin/*rest'], (_req, res) => {
    if (!fs.existsSync(index)) {
      res.status(503).type('text/plain').send('The client is not built yet: run `npm run build` (npm start does it for you).');
      return;
    }
    res.sendFile(index);
  });
}

/** One log line per request: method, path (never the query: it may hold a token or platform ids), status, ms. */
function requestLog(log: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.debug({ method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms) }, 'request');
    });
    next();
  };
}

/** Validates the trust-proxy option before anything opens (express would read the string "1" as an IP). */
function resolveTrustProxy(value: TrustProxy | undefined): TrustProxy {
  if (value === undefined) return DEFAULT_TRUST_PROXY;
  if (typeof value === 'boolean') return value;
  const parsed = TrustProxySetting.safeParse(String(value));
  if (!parsed.success) throw new Error(`invalid trustProxy option "${value}": ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  return parsed.data;
}
