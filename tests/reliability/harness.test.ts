import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedLines, parseFlags, readScript } from '../../cli/simulate';
import { io as connectClient, type Socket } from 'socket.io-client';
import { startRelay } from '../harness/relay';
import { echoHttp, echoStep, TrafficTally } from '../harness/phaseTraffic';
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

describe('the relay\'s echoes (the floor of bench:phases)', () => {
  it('carries a step\'s packets at the lengths counted, and an HTTP body and answer', async () => {
    const relay = await startRelay({ providerBaseURL: 'http://127.0.0.1:9' });
    const socket: Socket = connectClient(relay.url, { transports: ['websocket'], forceNew: true, reconnection: false });
    try {
      await new Promise<void>((resolve, reject) => socket.once('connect', () => resolve()).once('connect_error', reject));
      const tally = new TrafficTally();
      tally.watch(socket);
      const pushes: number[] = [];
      socket.on('relay:push', (p: { pad: string }) => pushes.push(p.pad.length));
      // A step that sent one 300-character packet and received three of 2,000 (two pushes, then the ack).
      tally.start();
      await echoStep(socket, { sent: 1, sentBytes: 300, received: 3, receivedBytes: 2000 });
      const replayed = tally.stop(1);
      expect(pushes).toHaveLength(2);
      expect(replayed.sent).toBe(1);
      expect(replayed.received).toBe(3);
      // Within a few characters (the ack id's digits).
      expect(Math.abs(replayed.sentBytes - 300)).toBeLessThan(5);
      expect(Math.abs(replayed.receivedBytes - 2000)).toBeLessThan(5);
      // Two requests' worth: five answers spread over them (3 + 2), each ending in its ack.
      tally.start();
      await echoStep(socket, { sent: 2, sentBytes: 100, received: 5, receivedBytes: 100 });
      expect(tally.stop(1)).toMatchObject({ sent: 2, received: 5 });
      expect(pushes).toHaveLength(2 + 3);
      // Nothing counted outside start/stop.
      await echoStep(socket, { sent: 1, sentBytes: 50, received: 1, receivedBytes: 50 });
      tally.start();
      expect(tally.stop(1)).toEqual({ sent: 0, sentBytes: 0, received: 0, receivedBytes: 0 });

      await expect(echoHttp(relay.url, 150, 180)).resolves.toBeUndefined();
      const res = await fetch(`${relay.url}/relay/echo?bytes=500`, { method: 'POST', body: 'x'.repeat(150) });
      expect((await res.text()).length).toBeGreaterThanOrEqual(490);
      expect((await fetch(`${relay.url}/relay/echo?bytes=-1`, { method: 'POST' })).status).toBe(404);
      expect((await fetch(`${relay.url}/other`)).status).toBe(404);
    } finally {
      socket.close();
      await relay.close();
    }
  });
});
