import { describe, expect, it } from 'vitest';
import { formatFaultOutcome } from '../harness/faultTraffic';
import { missingClusterTools } from '../../bench/cluster/cluster';
import { runNodeFaultScenario } from '../../bench/cluster/nodeFaultRun';

/**
 * The short version of `npm run fault:node` (bench/node-faults.ts) inside `npm test`: a real cluster on loopback
 * (PostgreSQL, Redis, HAProxy from deploy/haproxy.cfg, 2 nodes), 20 participants chatting through HAProxy, each
 * node SIGKILLed once and restarted, Redis and PostgreSQL restarted once. The same invariants as the long run.
 */
const missing = missingClusterTools('redis');
if (missing) console.warn(`tests/cluster/nodeKill.test.ts skipped: ${missing}`);

describe.skipIf(missing !== null)('node kills in a 2-node cluster behind HAProxy', () => {
  it('every participant completes; no acknowledged message is lost or duplicated; every cut reply is stored interrupted once and retried', async () => {
    const lines: string[] = [];
    const r = await runNodeFaultScenario({
      nodes: 2,
      participants: 20,
      turns: 5,
      kills: 2,
      killEveryMs: 2_000,
      sessionDeadlineMs: 90_000,
      onEvent: (line) => lines.push(line),
    });
    const report = [...lines, ...formatFaultOutcome(r)].join('\n');
    // Every planned fault happened during the traffic.
    expect(r.kills, report).toBe(2);
    expect(r.redisRestarts, report).toBe(1);
    expect(r.postgresRestarts, report).toBe(1);
    expect(r.simulation.errorSamples, report).toEqual([]);
    expect(r.simulation.completed, report).toBe(20);
    expect(r.simulation.turnsFailed, report).toBe(0);
    expect(r.check.acked, report).toBe(20 * 5);
    expect(r.check.lost, report).toEqual([]);
    expect(r.check.duplicated, report).toEqual([]);
    expect(r.check.phantom, report).toEqual([]);
    // Cut replies: flagged interrupted (status and flag agree), none left without an outcome, and each retried to an answer.
    expect(r.check.badInterruptFlags, report).toEqual([]);
    expect(r.check.unfinishedReplies, report).toEqual([]);
    expect(r.check.unanswered, report).toEqual([]);
    expect(r.check.duplicatedLifecycle, report).toEqual([]);
    expect(r.check.problems, report).toEqual([]);
    // The kills landed mid-stream (replies take ~0.6 s and traffic is continuous), so some reply was cut.
    expect(r.check.interruptedReplies, report).toBeGreaterThan(0);
    expect(r.resume.checked, report).toBe(20);
    expect(r.resume.problems, report).toEqual([]);
  }, 150_000);
});
