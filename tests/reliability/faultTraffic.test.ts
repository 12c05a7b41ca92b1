import { afterEach, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAI, type FakeOpenAI } from '../support/fakeOpenAI';
import { startFaultTraffic } from '../harness/faultTraffic';
import { ServerChild } from '../harness/serverChild';
import type { LogRecord } from '../../research/simulation/jsonlLog';

// The fault runs (npm run fault:crash, fault:node) pause between faults with FaultTraffic.pause; on a fast machine
// the traffic could end before the last planned fault, and the run failed for it. A pause given a share of the
// planned messages ends once that share is acknowledged.

let fake: FakeOpenAI | undefined;
let server: ServerChild | undefined;
afterEach(async () => {
  await server?.dispose();
  await fake?.close();
  server = undefined;
  fake = undefined;
});

const acknowledged = (records: readonly LogRecord[]): number =>
  new Set(records.filter((r) => r.kind === 'chat_ack').map((r) => r.clientId)).size;

describe('fault traffic pauses', () => {
  it('a pause with a share ends once that share of the planned messages is acknowledged, long before its time', async () => {
    const words = Array.from({ length: 20 }, (_, i) => ` w${i}`).join('');
    fake = await startFakeOpenAI({ tokensPerSecond: 50, responder: () => reply(words) });
    server = new ServerChild({ providerBaseURL: fake.url });
    await server.start();
    const traffic = startFaultTraffic({ baseUrl: server.url, studyId: 'travel-planning', participants: 6, turns: 4 });
    await traffic.flowing();
    expect(acknowledged(traffic.memory.records)).toBeGreaterThan(0);

    const t0 = performance.now();
    const over = await traffic.pause(60_000, 0.5); // at least 36 s by time alone (jitter ×0.6–1.4)
    const waited = performance.now() - t0;
    const atReturn = acknowledged(traffic.memory.records);
    expect(waited).toBeLessThan(30_000);
    expect(atReturn).toBeGreaterThanOrEqual(12); // half of 6 × 4
    // it ended on the share, with the traffic still going (each participant has turns of 0.4 s replies left)
    expect(over).toBe(false);
    expect(atReturn).toBeLessThan(24);

    const summary = await traffic.simulation;
    expect(summary.completed).toBe(6);
    expect(acknowledged(traffic.memory.records)).toBe(24);
    expect(await traffic.pause(60_000, 0.5)).toBe(true); // over: no wait at all
  });
});
