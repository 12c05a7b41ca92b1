import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedLines, parseFlags, readScript } from '../../cli/simulate';
import { startRelay } from '../harness/relay';
import { runRelayTraffic } from '../harness/relayClients';
import { median, percentile, summarizeLatencies } from '../../research/simulation/latencyStats';
import { startTimedProvider } from '../harness/timedProvider';
import { markedToken, MarkerTracker, parseMarkers } from '../../research/simulation/tokenMarkers';

describe('token markers', () => {
  it('times a marker split across two deltas by the delta that completes it', () => {
    const token = markedToken(7, 1000.5);
    const tracker = new MarkerTracker();
    expect(tracker.push(token.slice(0, 6), 1001)).toEqual([]);
    expect(tracker.push(token.slice(6) + markedToken(8, 1002), 1003.5)).toEqual([3, 1.5]);
    expect(tracker.markerCount).toBe(2);
    expect(parseMarkers(`a${markedToken(1, 5)}b`)).toEqual([{ seq: 1, sentAtMs: 5 }]);
  });
});

describe('latency statistics', () => {
  it('uses nearest-rank percentiles', () => {
    const xs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(xs, 50)).toBe(5);
    expect(percentile(xs, 99)).toBe(10);
    expect(percentile(xs, 10)).toBe(1);
    const s = summarizeLatencies([3, 1, 2]);
    expect([s.count, s.min, s.p50, s.max, s.mean]).toEqual([3, 1, 2, 3, 2]);
    expect(Number.isNaN(summarizeLatencies([]).p50)).toBe(true);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});

describe('simulate flags', () => {
  it('parses valid flags and names the bad flag otherwise', () => {
    const f = parseFlags(['--url', 'http://127.0.0.1:3000/', '--study', 'travel-planning', '--participants', '5', '--concurrency', '2']);
    expect(f).toMatchObject({ url: 'http://127.0.0.1:3000', study: 'travel-planning', participants: 5, concurrency: 2, turns: 3 });
    expect(() => parseFlags(['--study', 'x', '--participants', '1'])).toThrow('--url is required');
    expect(() => parseFlags(['--url', 'nope', '--study', 'x', '--participants', '1'])).toThrow(/--url/);
    expect(() => parseFlags(['--url', 'http://a', '--study', 'Bad Id', '--participants', '1'])).toThrow(/--study/);
    expect(() => parseFlags(['--url', 'http://a', '--study', 'x', '--participants', '0'])).toThrow(/--participants/);
    expect(() => parseFlags(['--url', 'http://a', '--study', 'x', '--participants', 'many'])).toThrow(/--participants/);
    expect(() => parseFlags(['--url', 'http://a', '--study', 'x', '--participants', '1', '--think-ms', '5..9'])).toThrow(/--think-ms/);
    expect(() => parseFlags(['--url', 'http://a', '--study', 'x', '--participants', '1', '--bogus'])).toThrow(/bogus/);
  });

  it('reads a chat script (comments and blank lines skipped) and rejects empty or unreadable files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-script-'));
    const file = join(dir, 'lines.txt');
    writeFileSync(file, '# greeting\nHello!\n\n  Second line  \n');
    expect(readScript(file)).toEqual(['Hello!', 'Second line']);
    writeFileSync(file, '# only comments\n\n');
    expect(() => readScript(file)).toThrow(/no chat lines/);
    expect(() => readScript(join(dir, 'missing.txt'))).toThrow(/cannot read \(ENOENT\)/);
    expect(generatedLines(7)).toHaveLength(7);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('bare relay baseline', () => {
  it('forwards every timestamped provider token to the client', async () => {
    const provider = await startTimedProvider({ tokensPerReply: 20, tokensPerSecond: 400 });
    const relay = await startRelay({ providerBaseURL: provider.baseURL });
    try {
      const r = await runRelayTraffic({ url: relay.url, participants: 3, turns: 2, thinkMs: { min: 0, max: 0 } });
      expect(r.replies).toBe(6);
      expect(r.failedReplies).toBe(0);
      expect(r.tokenLatenciesMs).toHaveLength(3 * 2 * 20);
      expect(Math.min(...r.tokenLatenciesMs)).toBeGreaterThanOrEqual(0);
      // Every message is acknowledged on receipt, so the ack floor has one sample per message.
      expect(r.ackLatenciesMs).toHaveLength(6);
      expect(Math.min(...r.ackLatenciesMs)).toBeGreaterThanOrEqual(0);
      // Replaying a recorded send timeline: one client per schedule row, one message per entry.
      const replay = await runRelayTraffic({ url: relay.url, participants: 0, turns: 0, thinkMs: { min: 0, max: 0 }, schedule: [[0, 30], [10]] });
      expect(replay.replies).toBe(3);
      expect(replay.tokenLatenciesMs).toHaveLength(3 * 20);
    } finally {
      await relay.close();
      await provider.close();
    }
  });
});
