import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { Server } from 'socket.io';
import type { LeaseOwner, Store } from '../lib/storage';
import type { LoadedConfig } from '../lib/studyFiles/studyConfig';
import type { LiveSessions } from './socket/liveSessions';
import type { RateLimitStores } from './cluster/rateLimitStore';

/** What an extension (the admin side) gets to mount its routes and sockets. */
export interface AppDeps {
  /** A sub-app that only ever sees requests under /api/admin/ (mount routes with their full path). */
  app: Express;
  io: Server;
  store: Store;
  config: LoadedConfig;
  dataDir: string;
  log: Logger;
  /** Session-changing services, for admin actions that need them. */
  now: () => number;
  /** Stops participant sessions' live activity (sockets, replies) before an admin action deletes them. */
  liveSessions?: LiveSessions;
  /** Where rate limits count (Redis with REDIS_URL, shared by the nodes; memory otherwise). */
  rateLimits?: RateLimitStores;
  /** This node in the cluster (name and incarnation): the owner of the dashboard jobs it runs. */
  nodeOwner?: LeaseOwner;
}

export type Mount = (deps: AppDeps) => void | Promise<void>;

const HERE = path.dirname(fileURLToPath(import.meta.url));

/**
 * Optional modules owned by other areas, mounted when present so the participant server never depends
 * on them at build time: server/admin/mount.ts exporting `mountAdmin(deps: AppDeps)`.
 * They are mounted before the SPA fallback, so their /api/admin/* routes win.
 */
export async function mountOptionalExtensions(deps: AppDeps): Promise<string[]> {
  const mounted: string[] = [];
  const candidates: Array<{ file: string; exportName: string }> = [{ file: path.join(HERE, 'admin', 'mount.ts'), exportName: 'mountAdmin' }];
  for (const c of candidates) {
    if (!fs.existsSync(c.file)) continue;
    const mod = (await import(pathToFileURL(c.file).href)) as Record<string, unknown>;
    const mount = mod[c.exportName];
    if (typeof mount !== 'function') throw new Error(`${c.file} must export function ${c.exportName}(deps)`);
    await (mount as Mount)(deps);
    mounted.push(path.relative(HERE, c.file));
  }
  return mounted;
}
