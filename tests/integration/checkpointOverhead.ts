/**
 * Overhead of crash checkpoints for streaming replies (services/replyCheckpoint.ts).
 *
 *   npx tsx tests/integration/checkpointOverhead.ts [--replies 40] [--tokens 200] [--tps 50]
 *
 * 1. End to end: an in-process server, real socket.io clients and the local fake OpenAI server streaming
 *    `--replies` concurrent replies of `--tokens` tokens at `--tps` tokens/s. Run twice, checkpoints on
 *    (default policy: ≤ 1 write / 500 ms or / 400 new chars) and off; prints writes per reply, time per
 *    write, and process CPU per reply for both (the process also runs the fake provider and the clients,
 *    so the CPU ratio is an upper bound on the server's share).
 * 2. Micro: the cost of one checkpoint upsert (growing text up to ~1 kB) on a WAL SQLite file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { reply, startFakeOpenAI } from '../support/fakeOpenAI';
import { openStore } from '../../lib/storage';
import { checkpointStats, DEFAULT_CHECKPOINT_POLICY } from '../../server/services/replyCheckpoint';
import { callOk, connectSocket, join, nextPush, startTestServer, toWorkspace } from '../support/integrationHarness';

const { values } = parseArgs({ options: { replies: { type: 'string', default: '40' }, tokens: { type: 'string', default: '200' }, tps: { type: 'string', default: '50' } } });
const REPLIES = Number(values.replies);
const TOKENS = Number(values.tokens);
const TPS = Number(values.tps);
const TEXT = ' token'.repeat(TOKENS); // ' token' is one o200k_base token

async function endToEnd(checkpoints: boolean) {
  const saved = { ...DEFAULT_CHECKPOINT_POLICY };
  if (!checkpoints) Object.assign(DEFAULT_CHECKPOINT_POLICY, { intervalMs: Number.POSITIVE_INFINITY, maxChars: Number.POSITIVE_INFINITY });
  const fake = await startFakeOpenAI({ responder: () => reply(TEXT, { tokensPerSecond: TPS }) });
  const t = await startTestServer({ openai: { baseURL: fake.url, apiKey: 'k', timeoutMs: 30_000 } });
  try {
    const sockets = [];
    for (let i = 0; i < REPLIES; i++) {
      const j = await join(t, 'travel-planning', { PROLIFIC_PID: `bench-${checkpoints}-${i}` });
      const s = await connectSocket(t, j.token);
      await toWorkspace(s);
      sockets.push(s);
    }
    const writes0 = checkpointStats.writes;
    const batches0 = checkpointStats.batches;
    const ns0 = checkpointStats.writeNs;
    const cpu0 = process.cpuUsage();
    const wall0 = performance.now();
    await Promise.all(
      sockets.map(async (s, i) => {
        const done = nextPush(s, 'chat:done', undefined, 120_000);
        await callOk(s, 'chat:send', { clientId: `bench-msg-${i}`, text: 'Go', clientTs: Date.now() });
        const { message } = await done;
        if (message.text !== TEXT) throw new Error('reply text differs');
      }),
    );
    const cpu = process.cpuUsage(cpu0);
    const writes = checkpointStats.writes - writes0;
    const batches = checkpointStats.batches - batches0;
    const writeMs = Number(checkpointStats.writeNs - ns0) / 1e6;
    return { wallMs: performance.now() - wall0, cpuMsPerReply: (cpu.user + cpu.system) / 1000 / REPLIES, writes, batches, writeMs };
  } finally {
    await t.close();
    await fake.close();
    Object.assign(DEFAULT_CHECKPOINT_POLICY, saved);
  }
}

async function micro(n = 20_000) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-cpbench-'));
  const store = await openStore({ dataDir: dir });
  try {
    await store.studies.upsertLoaded('s', 's', 'h', 'live', 0);
    await store.sessions.insert({ id: 'x', studyId: 's', taskId: 't', conditionId: 'c', isPilot: false, createdAt: 0 });
    const chunk = ' token'.repeat(25); // ~500 ms of text at 50 tokens/s
    const started = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      const reply = i % 8; // 8 checkpoints per reply, text growing to ~1.2 kB
      await store.replyProgress.save({ replyId: `r${Math.floor(i / 8)}`, sessionId: 'x', text: chunk.repeat(reply + 1), provider: 'p', firstDeltaAt: 0, updatedAt: i });
      if (reply === 7) await store.replyProgress.delete(`r${Math.floor(i / 8)}`);
    }
    return Number(process.hrtime.bigint() - started) / 1e3 / n;
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const usPerWrite = await micro();
console.log(`micro: one checkpoint upsert (WAL, synchronous=NORMAL, text ≤ 1.2 kB): ${usPerWrite.toFixed(1)} µs`);
const off = await endToEnd(false);
const on = await endToEnd(true);
const replyMs = (TOKENS / TPS) * 1000;
console.log(`end to end: ${REPLIES} concurrent replies × ${TOKENS} tokens at ${TPS} tokens/s (${(replyMs / 1000).toFixed(1)} s each)`);
console.log(`  checkpoints off: ${off.writes} writes; process CPU ${off.cpuMsPerReply.toFixed(1)} ms/reply; wall ${(off.wallMs / 1000).toFixed(2)} s`);
console.log(
  `  checkpoints on:  ${(on.writes / REPLIES).toFixed(1)} writes/reply (policy ≤1 per ${DEFAULT_CHECKPOINT_POLICY.intervalMs} ms or ${DEFAULT_CHECKPOINT_POLICY.maxChars} chars), ` +
    `in ${on.batches} store calls (${(on.writes / Math.max(1, on.batches)).toFixed(1)} replies each), ${((on.writeMs * 1000) / Math.max(1, on.writes)).toFixed(1)} µs/reply-write, ${(on.writeMs / REPLIES).toFixed(2)} ms of writes/reply ` +
    `(${((on.writeMs / REPLIES / replyMs) * 100).toFixed(3)}% of one core over the reply); process CPU ${on.cpuMsPerReply.toFixed(1)} ms/reply; wall ${(on.wallMs / 1000).toFixed(2)} s`,
);
console.log(`  CPU ratio on/off: ${(on.cpuMsPerReply / off.cpuMsPerReply).toFixed(3)} (noisy: shared machine, includes fake provider + clients)`);
process.exit(0);
