import type { AppDeps } from '../extensions';
import { AdminSessions } from './auth';
import { ExportJobs } from './exportJobs';
import { attachAdminNamespace } from './monitor';
import { ensureAdminPassword } from './password';
import { adminRoutes } from './routes';
import { AdminRuns } from './runs';

/**
 * Mounts the researcher side on the running app: /api/admin/* routes and the /admin socket.io namespace.
 * Called by server/extensions.ts (mountOptionalExtensions) when this file exists.
 * Env: ADMIN_PASSWORD (else one is generated at first start and printed once),
 * ADMIN_LOGIN_ATTEMPTS_PER_15_MIN (default 10).
 */
export async function mountAdmin(deps: AppDeps, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  await ensureAdminPassword(deps.store, env, deps.log);
  const sessions = new AdminSessions(deps.store, deps.now);
  const namespace = attachAdminNamespace(deps.io, deps.store, sessions, deps.log, deps.now);
  const exports = new ExportJobs(deps.store, deps.dataDir, deps.config, deps.log, deps.now, deps.nodeOwner);
  const owner = deps.nodeOwner ? { owner: deps.nodeOwner } : {};
  const runs = new AdminRuns({ store: deps.store, config: deps.config, dataDir: deps.dataDir, log: deps.log, now: deps.now, env, ...owner }, (p) =>
    namespace.emitToAll('run:progress', p),
  );
  const attempts = Number(env.ADMIN_LOGIN_ATTEMPTS_PER_15_MIN);
  deps.app.use(
    adminRoutes({
      store: deps.store,
      config: deps.config,
      dataDir: deps.dataDir,
      log: deps.log,
      now: deps.now,
      sessions,
      namespace,
      exports,
      runs,
      ...(deps.liveSessions ? { liveSessions: deps.liveSessions } : {}),
      ...(Number.isInteger(attempts) && attempts > 0 ? { loginAttemptsPer15Min: attempts } : {}),
      ...(deps.rateLimits ? { loginRateLimitStore: deps.rateLimits.create('admin-login') } : {}),
    }),
  );
  // The socket server closes with the app; stop our timers and temp exports with it.
  deps.io.engine.on('close', () => {
    namespace.close();
    exports.close();
    void runs.close();
  });
  const httpServer = (deps.io as unknown as { httpServer?: { once(e: string, f: () => void): void } }).httpServer;
  httpServer?.once('close', () => {
    namespace.close();
    exports.close();
    void runs.close();
  });
}
