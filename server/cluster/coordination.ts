import crypto from 'node:crypto';
import { z } from 'zod';
import type { LeaseOwner, ReplyLeaseRow } from '../../lib/storage';
import { nodeIdFromEnv } from './nodeIdentity';

/**
 * How this node takes part in cluster coordination: its name and incarnation (the owner of its reply leases
 * and dashboard jobs) and the lease timings. Defaults suit production; tests shorten the timings.
 */
export interface Coordination {
  owner: LeaseOwner;
  /** A lease not refreshed for this long belongs to a dead node and may be taken over (default 15 s). */
  leaseTtlMs: number;
  /** How often the owner refreshes its leases and picks up Stops from other nodes (default 2 s). */
  heartbeatMs: number;
  /** How often a node looks for leases of dead nodes to take over (default 5 s; 0 = only at start-up). */
  takeoverMs: number;
  /**
   * This node is the only one on its database: every other incarnation's lease is then this node's previous
   * run, taken over at once on restart even without a stable TANDEM_NODE_ID. See aloneOnStore (the server's
   * default); false here unless given.
   */
  singleNode: boolean;
}

/**
 * Whether a node assumes it is alone on its store: always on SQLite (one node by construction), and on
 * PostgreSQL unless TANDEM_NODE_ID is set. Cluster membership is opt-in: every node of a cluster must have its
 * own TANDEM_NODE_ID, or a restarting node would take the others' live replies for its own previous run's.
 */
export function aloneOnStore(engine: 'sqlite' | 'postgres', env: NodeJS.ProcessEnv = process.env): boolean {
  return engine === 'sqlite' || env.TANDEM_NODE_ID === undefined || env.TANDEM_NODE_ID === '';
}

const Timings = z
  .object({
    TANDEM_LEASE_TTL_MS: z.coerce.number().int().min(100).default(15_000),
    TANDEM_LEASE_HEARTBEAT_MS: z.coerce.number().int().min(10).default(2_000),
    TANDEM_TAKEOVER_SWEEP_MS: z.coerce.number().int().min(0).default(5_000),
  })
  .refine((t) => t.TANDEM_LEASE_HEARTBEAT_MS * 2 < t.TANDEM_LEASE_TTL_MS, {
    message: 'TANDEM_LEASE_HEARTBEAT_MS must be less than half of TANDEM_LEASE_TTL_MS (a slow heartbeat would look like a dead node)',
    path: ['TANDEM_LEASE_HEARTBEAT_MS'],
  });

/**
 * This process's coordination settings: node name from TANDEM_NODE_ID (nodeIdentity.ts), a fresh incarnation,
 * timings from TANDEM_LEASE_TTL_MS / TANDEM_LEASE_HEARTBEAT_MS / TANDEM_TAKEOVER_SWEEP_MS, then `overrides`.
 * A bad value throws naming the variable.
 */
export function coordinationFromEnv(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Coordination> = {}): Coordination {
  const empty = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);
  const parsed = Timings.safeParse({
    TANDEM_LEASE_TTL_MS: empty(env.TANDEM_LEASE_TTL_MS),
    TANDEM_LEASE_HEARTBEAT_MS: empty(env.TANDEM_LEASE_HEARTBEAT_MS),
    TANDEM_TAKEOVER_SWEEP_MS: empty(env.TANDEM_TAKEOVER_SWEEP_MS),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${issue.path.join('.')}: ${issue.message}`);
  }
  const t = parsed.data;
  const result: Coordination = {
    owner: { node: nodeIdFromEnv(env), incarnation: crypto.randomUUID() },
    leaseTtlMs: t.TANDEM_LEASE_TTL_MS,
    heartbeatMs: t.TANDEM_LEASE_HEARTBEAT_MS,
    takeoverMs: t.TANDEM_TAKEOVER_SWEEP_MS,
    singleNode: false,
    ...overrides,
  };
  if (result.heartbeatMs * 2 >= result.leaseTtlMs) throw new Error(`lease heartbeat (${result.heartbeatMs} ms) must be less than half of the lease expiry (${result.leaseTtlMs} ms)`);
  return result;
}

/**
 * Whether this node may take over the lease: it is its own previous incarnation (it restarted: nothing of that
 * process runs any more; on a single-node store any other incarnation is), or its owner has not refreshed it
 * for a whole lease expiry (a dead node, or a reply that ended without being stored). The multi-node rule is
 * the one of ReplyLeasesRepo.listTakeoverCandidates. Two live processes must never share a TANDEM_NODE_ID:
 * each would take the other for its previous incarnation.
 */
export function mayTakeOver(lease: Pick<ReplyLeaseRow, 'ownerNode' | 'ownerIncarnation' | 'heartbeatAt'>, c: Coordination, now: number): boolean {
  const me = c.owner;
  if (lease.ownerIncarnation !== me.incarnation && (c.singleNode || lease.ownerNode === me.node)) return true;
  return lease.heartbeatAt <= now - c.leaseTtlMs;
}

let owner: LeaseOwner | undefined;
/**
 * This process as the owner of its dashboard jobs: the node name (TANDEM_NODE_ID) and one incarnation for the
 * process's lifetime. (Reply leases get theirs from coordinationFromEnv, one per server started.)
 */
export function processOwner(): LeaseOwner {
  owner ??= { node: nodeIdFromEnv(), incarnation: crypto.randomUUID() };
  return owner;
}
