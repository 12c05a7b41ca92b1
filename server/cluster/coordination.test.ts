/** Coordination settings from the environment and the takeover rule (cluster/coordination.ts). */
import { describe, expect, it } from 'vitest';
import { aloneOnStore, coordinationFromEnv, mayTakeOver } from './coordination';

describe('coordination settings', () => {
  it('default to a 15 s lease, 2 s heartbeat and 5 s takeover sweep, with a fresh incarnation per call', () => {
    const a = coordinationFromEnv({ TANDEM_NODE_ID: 'node-1' });
    const b = coordinationFromEnv({ TANDEM_NODE_ID: 'node-1' });
    expect(a).toMatchObject({ owner: { node: 'node-1' }, leaseTtlMs: 15_000, heartbeatMs: 2_000, takeoverMs: 5_000, singleNode: false });
    expect(a.owner.incarnation).not.toBe(b.owner.incarnation);
    expect(coordinationFromEnv({ TANDEM_LEASE_TTL_MS: '3000', TANDEM_LEASE_HEARTBEAT_MS: '500', TANDEM_TAKEOVER_SWEEP_MS: '0' })).toMatchObject({ leaseTtlMs: 3_000, heartbeatMs: 500, takeoverMs: 0 });
  });

  it('refuse bad timings naming the variable', () => {
    expect(() => coordinationFromEnv({ TANDEM_LEASE_TTL_MS: 'soon' })).toThrow(/^TANDEM_LEASE_TTL_MS: /);
    expect(() => coordinationFromEnv({ TANDEM_LEASE_TTL_MS: '1000', TANDEM_LEASE_HEARTBEAT_MS: '600' })).toThrow(/TANDEM_LEASE_HEARTBEAT_MS: .*half/);
    expect(() => coordinationFromEnv({}, { leaseTtlMs: 1_000, heartbeatMs: 500 })).toThrow(/less than half/);
    expect(() => coordinationFromEnv({ TANDEM_NODE_ID: 'has space' })).toThrow(/TANDEM_NODE_ID/);
  });

  it('treat a node as alone on SQLite always, and on PostgreSQL only without TANDEM_NODE_ID', () => {
    expect(aloneOnStore('sqlite', { TANDEM_NODE_ID: 'n1' })).toBe(true);
    expect(aloneOnStore('postgres', {})).toBe(true);
    expect(aloneOnStore('postgres', { TANDEM_NODE_ID: '' })).toBe(true);
    expect(aloneOnStore('postgres', { TANDEM_NODE_ID: 'n1' })).toBe(false);
  });
});

describe('mayTakeOver', () => {
  const me = coordinationFromEnv({}, { owner: { node: 'a', incarnation: 'a2' }, leaseTtlMs: 10_000, heartbeatMs: 1_000 });
  const lease = (ownerNode: string, ownerIncarnation: string, heartbeatAt: number) => ({ ownerNode, ownerIncarnation, heartbeatAt });

  it('takes a lease not refreshed for a whole expiry, from any owner, and never a fresh one of another node', () => {
    expect(mayTakeOver(lease('b', 'b1', 0), me, 10_000)).toBe(true);
    expect(mayTakeOver(lease('b', 'b1', 1), me, 10_000)).toBe(false);
    expect(mayTakeOver(lease('a', 'a2', 0), me, 10_000)).toBe(true); // its own reply that ended unstored
    expect(mayTakeOver(lease('a', 'a2', 1), me, 10_000)).toBe(false);
  });

  it('takes its own node’s previous incarnation at once; alone on the store, any other incarnation', () => {
    expect(mayTakeOver(lease('a', 'a1', 9_999), me, 10_000)).toBe(true);
    expect(mayTakeOver(lease('host:99:x', 'z', 9_999), me, 10_000)).toBe(false);
    expect(mayTakeOver(lease('host:99:x', 'z', 9_999), { ...me, singleNode: true }, 10_000)).toBe(true);
    expect(mayTakeOver(lease('a', 'a2', 9_999), { ...me, singleNode: true }, 10_000)).toBe(false);
  });
});
