import type { ServerPlugin } from '../plugins';
import { AdminSessions } from './auth';
import { ExportJobs } from './exportJobs';
import { attachAdminNamespace } from './monitor';
import { ensureAdminPassword } from './password';
import type { ResearchTools } from './researchTools';
import { adminRoutes } from './routes';
import { AdminRuns } from './runs';

/**
 * The researcher side as a plug-in (registered by wiring/plugins.ts): /api/admin/* routes and the /admin socket.io
 * namespace, with the dashboard's export, judge and analysis runs done by `tools`. Mounted last: its catch-all
 * answers unknown admin routes.
 * Env: ADMIN_PASSWORD (else one is generated at first start and printed once),
 * ADMIN_LOGIN_ATTEMPTS_PER_15_MIN (default 10).
 */
export function adminPlugin(tools: ResearchTools, env: NodeJS.ProcessEnv = process.env): ServerPlugin {
  return {
    name: 'admin',
    async mount(host) {
      await ensureAdminPassword(host.store, env, host.log);
      const sessions = new AdminSessions(host.store, host.now);
      const namespace = attachAdminNamespace(host.io, host.store, sessions, host.log, host.now, { config: host.config, runtime: host.groups });
      const exports = new ExportJobs(host.store, host.dataDir, host.config, host.log, host.now, tools, host.nodeOwner);
      const runs = new AdminRuns(
        { store: host.store, config: host.config, dataDir: host.dataDir, log: host.log, now: host.now, env, owner: host.nodeOwner, tools },
        (p) => namespace.emitToAll('run:progress', p),
      );
      const attempts = Number(env.ADMIN_LOGIN_ATTEMPTS_PER_15_MIN);
      host.adminApp.use(
        adminRoutes({
          store: host.store,
          config: host.config,
          dataDir: host.dataDir,
          log: host.log,
          now: host.now,
          sessions,
          namespace,
          exports,
          runs,
          liveSessions: host.liveSessions,
          ...(Number.isInteger(attempts) && attempts > 0 ? { loginAttemptsPer15Min: attempts } : {}),
          loginRateLimitStore: host.rateLimits.create('admin-login'),
        }),
      );
      // The socket server closes with the app; stop our timers and temp exports with it.
      const stop = () => {
        namespace.close();
        exports.close();
        void runs.close();
      };
      host.io.engine.on('close', stop);
      const httpServer = (host.io as unknown as { httpServer?: { once(e: string, f: () => void): void } }).httpServer;
      httpServer?.once('close', stop);
    },
  };
}
