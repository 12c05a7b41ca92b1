import { Router } from 'express';
import type { Namespace } from 'socket.io';
import type { Store, StoreEngine } from '../../lib/storage';
import type { SocketAdapterKind } from '../cluster/clusterOptions';
import { publicNodeName } from '../cluster/nodeIdentity';

/** A database that has not answered within this is reported down (the load balancer then routes around us). */
export const HEALTH_DATABASE_TIMEOUT_MS = 2000;

/** GET /healthz's body, with 200 when status is "ok" and 503 when it is "unavailable". */
export interface HealthReport {
  status: 'ok' | 'unavailable';
  node: string;
  database: { ok: boolean; engine: StoreEngine };
  adapter: { kind: SocketAdapterKind; ok: boolean };
}

export interface HealthDeps {
  nodeId: string;
  store: Store;
  adapter: { kind: SocketAdapterKind; connected(nsp: Namespace): boolean };
  /** The participant namespace, whose adapter links this node to the others. */
  namespace: () => Namespace;
}

/**
 * GET /healthz for HAProxy and operators: no authentication, so it says only whether this node can serve
 * (its database answers a trivial query, its socket adapter is connected) and the node's name; never a URL,
 * a host, a PID or an error text (a name made up without TANDEM_NODE_ID is shown without its host and PID).
 */
export function healthRoutes(deps: HealthDeps): Router {
  const router = Router();
  router.get('/healthz', async (_req, res) => {
    const report = await healthReport(deps);
    res.setHeader('Cache-Control', 'no-store');
    res.status(report.status === 'ok' ? 200 : 503).json(report);
  });
  return router;
}

export async function healthReport(deps: HealthDeps): Promise<HealthReport> {
  const databaseOk = await databaseAnswers(deps.store);
  const adapterOk = deps.adapter.connected(deps.namespace());
  return {
    status: databaseOk && adapterOk ? 'ok' : 'unavailable',
    node: publicNodeName(deps.nodeId),
    database: { ok: databaseOk, engine: deps.store.engine },
    adapter: { kind: deps.adapter.kind, ok: adapterOk },
  };
}

async function databaseAnswers(store: Store): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), HEALTH_DATABASE_TIMEOUT_MS)));
  try {
    return await Promise.race([store.schemaVersion().then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
