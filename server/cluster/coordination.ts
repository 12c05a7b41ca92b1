import crypto from 'node:crypto';
import { z } from 'zod';
import type { LeaseOwner, ReplyLeaseRow } from '../db/leaseTypes';
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
    ...overrides,
  };
  if (result.heartbeatMs * 2 >= result.leaseTtlMs) throw new Error(`lease heartbeat (${result.heartbeatMs} ms) must be less than half of the lease expiry (${result.leaseTtlMs} ms)`);
  return result;
}

/**
 * Whether `me` may take over the lease: it is my own node's previous incarnation (I restarted: nothing of that
 * process runs any more), or its owner has not refreshed it for a whole lease expiry (a dead node, or a reply
 * that ended without being stored). The same rule as ReplyLeasesRepo.listTakeoverCandidates. Two live
 * processes must never share a TANDEM_NODE_ID: each would take the other for its previous incarnation.
 */
export function mayTakeOver(lease: Pick<ReplyLeaseRow, 'ownerNode' | 'ownerIncarnation' | 'heartbeatAt'>, me: LeaseOwner, leaseTtlMs: number, now: number): boolean {
  if (lease.ownerNode === me.node && lease.ownerIncarnation !== me.incarnation) return true;
  return lease.heartbeatAt <= now - leaseTtlMs;
}
