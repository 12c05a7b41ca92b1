/**
 * The group simulation against a real server: simulated people form full groups, every acknowledged room message
 * reaches every member still there, and a seeded dropout share leaves the room without losing anyone's deliveries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGroupSimulation, seededRandom } from '../../research/simulation/groupSimulation';
import { groupStudyDirs } from '../support/groupTestStudies';
import { startTestServer, type TestServer } from '../support/integrationHarness';

describe('group simulation', () => {
  let t: TestServer;
  const dirs = groupStudyDirs();
  beforeAll(async () => {
    t = await startTestServer({ studiesDir: dirs.studiesDir, surveysDir: dirs.surveysDir, joinRateLimitPerMinute: 10_000 });
  });
  afterAll(async () => {
    await t?.close();
    dirs.cleanup();
  });

  it('seats six people in two groups, delivers every message to every member, and completes them', async () => {
    const s = await runGroupSimulation({ url: t.server.url, study: 'group-room', participants: 6, runId: 'a', turns: 2, dropout: 0, seed: 1, thinkMs: 0, timeoutMs: 20_000 });
    expect(s.errors).toEqual([]);
    expect([s.grouped, s.groups, s.released, s.completed]).toEqual([6, 2, 0, 6]);
    expect(s.messagesSent).toBe(12);
    expect(s.deliveriesExpected).toBe(24);
    expect(s.deliveriesLost).toBe(0);
    expect(s.fanoutMs).toHaveLength(24);
    // every stored room message, the agent's replies included, reached every member: 6 people's messages per group × 3
    expect(s.roomDeliveriesMissing).toBe(0);
    expect(s.roomDeliveriesExpected).toBeGreaterThanOrEqual(36);
    expect([s.writer, s.writerFailures]).toEqual(['script', 0]);
    const sessions = (await t.server.store.sessions.listByStudy('group-room')).filter((x) => x.status === 'completed');
    expect(sessions).toHaveLength(6);
  });

  it('drops the same seeded share of people and still loses no delivery to those who stay', async () => {
    const leaves = Array.from({ length: 6 }, seededRandom(7)).filter((x) => x < 0.5).length;
    const s = await runGroupSimulation({ url: t.server.url, study: 'group-room', participants: 6, runId: 'b', turns: 2, dropout: 0.5, seed: 7, thinkMs: 0, timeoutMs: 20_000 });
    expect(s.droppedOut).toBe(leaves);
    expect(s.completed).toBe(6 - leaves);
    expect(s.deliveriesLost).toBe(0);
    expect(s.roomDeliveriesMissing).toBe(0);
  });
});
