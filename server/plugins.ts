/**
 * Plug-ins: what the participant runtime does not own but runs when the wiring registers it (wiring/plugins.ts):
 * the Wizard-of-Oz desk, the researcher side (dashboard, monitor, exports, judge and analysis runs) and the
 * teamwork seat's teammates. The runtime never imports them; each plug-in sees only what is declared here.
 */
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { Server } from 'socket.io';
import type { LeaseOwner, Store } from '../lib/storage';
import type { LoadedConfig, StudyFileCheck } from '../lib/studyFiles/studyConfig';
import type { ConditionProviderPlugin } from './services/providers';
import type { ReplyResumer, ServiceContext } from './services/serviceContext';
import type { LiveSessions } from './socket/liveSessions';
import type { RateLimitStores } from './cluster/rateLimitStore';
import type { GroupRuntime } from './groups/runtime';

/** What a plug-in gets to mount its routes and sockets on a starting server. */
export interface PluginHost {
  /** A sub-app that only ever sees requests under /api/admin/ (mount routes with their full path). */
  adminApp: Express;
  io: Server;
  /** The services' context: a plug-in that answers replies sets its desk here (ctx.wizard). */
  ctx: ServiceContext;
  store: Store;
  config: LoadedConfig;
  dataDir: string;
  log: Logger;
  now: () => number;
  /** Resumes a reply on this node (a reply that waited for a researcher when the process stopped). */
  chat: ReplyResumer;
  /** Stops participant sessions' live activity (sockets, replies) before an admin action deletes them. */
  liveSessions: LiveSessions;
  /** Where rate limits count (Redis with REDIS_URL, shared by the nodes; memory otherwise). */
  rateLimits: RateLimitStores;
  /** This node in the cluster (name and incarnation): the owner of the dashboard jobs it runs. */
  nodeOwner: LeaseOwner;
  /** Group sessions on this node: the monitor's live feed and the wizard's voice in a room. */
  groups: GroupRuntime;
}

export interface ServerPlugin {
  /** Shown in the start-up log. */
  name: string;
  /** Checks of study files beyond their schema, run when the configuration loads (a problem stops the start). */
  studyChecks?: readonly StudyFileCheck[];
  /** The provider of the conditions this plug-in answers. */
  conditionProvider?: ConditionProviderPlugin;
  /**
   * Mounts routes and sockets, after the participant routes and before the SPA fallback, in registration order
   * (a plug-in with a catch-all under /api/admin/ goes last).
   */
  mount?(host: PluginHost): void | Promise<void>;
}

/** The study-file checks of every plug-in. */
export const studyChecksOf = (plugins: readonly ServerPlugin[]): StudyFileCheck[] => plugins.flatMap((p) => p.studyChecks ?? []);

/** The condition providers of every plug-in, in registration order. */
export const conditionProvidersOf = (plugins: readonly ServerPlugin[]): ConditionProviderPlugin[] =>
  plugins.flatMap((p) => (p.conditionProvider ? [p.conditionProvider] : []));
