/**
 * `npm run bench:phases` — what each step of a session costs the server, in CPU per participant. N participants
 * (default 500) go through a session one step at a time, all of them finishing a step before any starts the
 * next: join (HTTP), socket connect, session:state, consent, instructions, then per turn a chat:send answered
 * with a one-token reply and an artifact:draft, then artifact:submit, the survey and the disconnect. The server
 * (a child process on a fresh SQLite DATA_DIR, or --database postgres on a throwaway cluster) is read from
 * /proc at the end of each step, a quiet period after its last request (all its threads; with PostgreSQL the
 * backends too, their part also printed apart): the steps' windows are back to back, so they add up to the whole
 * run's CPU. A bare socket.io relay's connect and one-token replies (one window per turn) are measured the same way,
 * for the parts both do.
 *
 * Each step's floor: the relay carrying the step's bytes and nothing else (tests/harness/phaseTraffic.ts). The join is an
 * HTTP request of the same body and answer lengths, every socket step as many packets of the same mean lengths as
 * the participants sent and received in it, measured the same way; the connect, the replies and the disconnect are
 * the relay's own. What a step used beyond its floor is the platform's own work in it.
 *
 *   npm run bench:phases -- [--participants 500] [--turns 3] [--concurrency 50] [--database sqlite|postgres] [--study travel-planning]
 *                           [--profile <dir>]   (V8 CPU profiles of the server, one per thread)
 *                           [--sqlite-meter]    (SQLite only: the event loop's time in SQLite statements, per step and
 *                                                by statement; tests/harness/sqliteMeter.ts)
 *
 * /proc counts CPU in 10 ms ticks: with 500 participants a step is resolved to 0.02 ms per participant.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { io as connect, type Socket } from 'socket.io-client';
import { z } from 'zod';
import type { SessionState } from '../common/session';
import { cpuSecondsOf, startChild } from '../tests/harness/childProcess';
import { ServerChild } from '../tests/harness/serverChild';
import { cpuProfileArgs } from '../tests/harness/loadRounds';
import { postgresCpuReader, postgresPids } from '../tests/harness/postgresCpu';
import { startPostgresCluster } from '../tests/support/postgresCluster';
import { joinStudy, visitLinkParams } from '../research/simulation/http';
import { artifactValues, surveyAnswers } from '../research/simulation/participantInputs';
import { seededRandom } from '../lib/stats/seededRandom';
import { runPool } from '../research/judge/workPool';
import { callOk, type ParticipantClient } from '../tests/support/integrationHarness';
import { benchFlags } from './benchFlags';
import { echoHttp, echoStep, TrafficTally, type StepTraffic } from '../tests/harness/phaseTraffic';
import { formatMeterRows, meterDifference, meterTotalMs, type SqliteMeterRow } from '../tests/harness/sqliteMeter';

const Flags = z.object({
  participants: z.coerce.number().int().min(10).max(5000).default(500),
  turns: z.coerce.number().int().min(1).max(10).default(3),
  concurrency: z.coerce.number().int().min(1).max(1000).default(50),
  database: z.enum(['sqlite', 'postgres']).default('sqlite'),
  study: z.string().default('travel-planning'),
  profile: z.string().optional(),
  'sqlite-meter': z.boolean().default(false),
});
const f = benchFlags('bench:phases', { participants: { type: 'string' }, turns: { type: 'string' }, concurrency: { type: 'string' }, database: { type: 'string' }, study: { type: 'string' }, profile: { type: 'string' }, 'sqlite-meter': { type: 'boolean' } }, Flags);
if (f['sqlite-meter'] && f.database !== 'sqlite') {
  console.error('bench:phases: --sqlite-meter: only with --database sqlite (PostgreSQL runs its statements in its backends)');
  process.exit(2);
}
const QUIET_MS = 400;
const random = seededRandom(7);

/** Runs `step` for every item, `--concurrency` at a time. */
async function each<T>(items: readonly T[], step: (item: T, i: number) => Promise<void>): Promise<void> {
  await runPool(items, f.concurrency, step);
}

function opened(url: string, auth: Record<string, unknown> | undefined): Promise<Socket> {
  const socket = connect(url, { ...(auth ? { auth } : {}), transports: ['websocket'], forceNew: true, reconnection: false });
  return new Promise((resolve, reject) => socket.once('connect', () => resolve(socket)).once('connect_error', reject));
}

const quiet = () => new Promise((r) => setTimeout(r, QUIET_MS));
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
/** Each step's window on the monotonic clock (µs, the clock of V8's CPU profiles), printed with --profile. */
const windows: Array<{ step: string; fromUs: number; toUs: number }> = [];

/**
 * Measures steps of one process (`cpu` reads its CPU seconds, all parts): each step's CPU per participant, from the
 * previous reading to QUIET_MS after the step's last request. The windows are back to back from the first reading on,
 * so every tick is charged to some step: work a step leaves behind (a WAL checkpoint, a collection) lands in it or in
 * the next one, and the steps add up to the whole run.
 */
async function meter(cpu: () => number): Promise<(step: string, run: () => Promise<void>) => Promise<number>> {
  // Start-up (migrations, the first study load) is over once the process answers; what follows is the steps'.
  await quiet();
  let last = { cpu: cpu(), atUs: monotonicUs() };
  return async (step, run) => {
    await run();
    await quiet();
    const now = { cpu: cpu(), atUs: monotonicUs() };
    windows.push({ step, fromUs: last.atUs, toUs: now.atUs });
    const ms = ((now.cpu - last.cpu) * 1000) / f.participants;
    last = now;
    return ms;
  };
}

const rows: Array<{ step: string; ms: number; relayMs?: number; floorMs?: number; traffic?: StepTraffic; sqliteMs?: number; backendsMs?: number }> = [];
const tally = new TrafficTally();
/** The join's request body and answer, mean lengths (characters of JSON). */
const joinBytes = { sent: 0, received: 0 };
/** --sqlite-meter: the server appends its statement totals to this file on SIGUSR2 (after each step) and at exit. */
const meterFile = f['sqlite-meter'] ? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-sqlite-meter-')), 'meter.jsonl') : undefined;
const meterSnapshots: SqliteMeterRow[][] = [];

const provider = await startChild<{ baseURL: string }>(new URL('../tests/harness/timedProviderProcess.ts', import.meta.url), {
  env: { TOKENS_PER_REPLY: '1', TOKENS_PER_SECOND: '1000', MARK_EVERY: '1' },
});
const cluster = f.database === 'postgres' ? await startPostgresCluster() : undefined;
const server = new ServerChild({ providerBaseURL: provider.ready.baseURL, ...(cluster ? { databaseUrl: cluster.url } : {}), env: { REPLY_TIMEOUT_MS: '120000', ...(meterFile ? { TANDEM_SQLITE_METER: meterFile } : {}) }, ...(f.profile ? { nodeArgs: cpuProfileArgs(f.profile) } : {}) });
try {
  await server.start();
  const backends = cluster ? postgresCpuReader(() => postgresPids(cluster.dir)) : undefined;
  const step = await meter(() => (cpuSecondsOf(server.pid) ?? NaN) + (backends?.() ?? 0));
  // With PostgreSQL, the backends' part of each step (read right after the step's reading, so the two windows match).
  let backendsBefore = backends?.() ?? 0;
  const measure = async (name: string, run: () => Promise<void>) => {
    tally.start();
    const ms = await step(name, run);
    const traffic = tally.stop(f.participants);
    const backendsNow = backends?.() ?? 0;
    rows.push({ step: name, ms, traffic, ...(backends ? { backendsMs: ((backendsNow - backendsBefore) * 1000) / f.participants } : {}) });
    backendsBefore = backendsNow;
    if (meterFile) await meterSnapshot(server.pid!, meterFile);
  };
  if (meterFile) await meterSnapshot(server.pid!, meterFile);
  console.log(`bench:phases: ${f.participants} participants × ${f.turns} turns, study ${f.study}, ${cluster ? 'PostgreSQL (server + backends)' : 'SQLite'}, ${f.concurrency} at a time`);
  const ids = Array.from({ length: f.participants }, (_, i) => i);
  const tokens: string[] = [];
  const sockets: ParticipantClient[] = [];
  const states: SessionState[] = [];
  const replyDone = (socket: Socket) => new Promise<void>((resolve) => socket.once('chat:done', () => resolve()));

  await measure('join (POST /api/join)', () =>
    each(ids, async (i) => {
      const body = { studyId: f.study, params: visitLinkParams(`phase-${process.pid}-${i}`) };
      const joined = await joinStudy(server.url, body.studyId, body.params, 60_000);
      tokens[i] = joined.token;
      joinBytes.sent += JSON.stringify(body).length / f.participants;
      joinBytes.received += JSON.stringify({ ok: true, data: joined }).length / f.participants;
    }),
  );
  await measure('socket connect (+ connection.opened)', () =>
    each(ids, async (i) => {
      sockets[i] = await opened(server.url, { token: tokens[i] });
      tally.watch(sockets[i]!);
    }),
  );
  await measure('session:state', () => each(ids, async (i) => void (states[i] = await callOk(sockets[i]!, 'session:state', { clientTs: Date.now() }))));
  await measure('consent:respond', () =>
    each(ids, async (i) => void (states[i] = await callOk(sockets[i]!, 'consent:respond', { accept: true, version: states[i]!.consent.version, clientTs: Date.now() }))),
  );
  await measure('step:advance (instructions)', () =>
    each(ids, async (i) => void (states[i] = await callOk(sockets[i]!, 'step:advance', { from: 'instructions', clientTs: Date.now() }))),
  );
  for (let turn = 0; turn < f.turns; turn++) {
    await measure(`chat:send + one-token reply (turn ${turn + 1})`, () =>
      each(ids, async (i) => {
        const done = replyDone(sockets[i]!);
        await callOk(sockets[i]!, 'chat:send', { clientId: `phase-${i}-t${turn}`, text: `Plan day ${turn + 1} for me, please.`, clientTs: Date.now() });
        await done;
      }),
    );
    await measure(`artifact:draft (turn ${turn + 1})`, () =>
      each(ids, async (i) => void (await callOk(sockets[i]!, 'artifact:draft', { fields: artifactValues(states[i]!, {}, turn), clientTs: Date.now() }))),
    );
  }
  await measure('artifact:submit', () =>
    each(ids, async (i) => void (states[i] = await callOk(sockets[i]!, 'artifact:submit', { fields: artifactValues(states[i]!, {}, f.turns), clientTs: Date.now() }))),
  );
  await measure('survey:submit', () =>
    each(ids, async (i) => void (states[i] = await callOk(sockets[i]!, 'survey:submit', { answers: surveyAnswers(states[i]!, random), clientTs: Date.now() }))),
  );
  await measure('disconnect (+ connection.closed)', async () => {
    for (const s of sockets) s.close();
  });
  const incomplete = states.filter((s) => s.step !== 'complete').length;
  if (incomplete > 0) throw new Error(`${incomplete} sessions did not reach the end`);
  // A graceful stop: the CPU profiles (--profile) are written at exit.
  await server.stop();
} finally {
  await server.dispose();
  await cluster?.stop();
}

// The relay: its connect and one-token replies, the parts of a session it also does; then each step's floor (phaseTraffic.ts).
const relay = await startChild<{ url: string }>(new URL('../tests/harness/relayProcess.ts', import.meta.url), {
  env: { PROVIDER_BASE_URL: provider.ready.baseURL, RELAY_READER: 'tandem' },
});
try {
  const step = await meter(() => cpuSecondsOf(relay.child.pid) ?? NaN);
  const ids = Array.from({ length: f.participants }, (_, i) => i);
  const sockets: Socket[] = [];
  const connectMs = await step('relay: socket connect', () => each(ids, async (i) => void (sockets[i] = await opened(relay.ready.url, undefined))));
  // One window per turn, as the platform's (the first reply of a connection costs more than the later ones).
  const replyMs: number[] = [];
  for (let turn = 0; turn < f.turns; turn++)
    replyMs.push(
      await step(`relay: message + one-token reply (turn ${turn + 1})`, () =>
        // With an ack, as the load bench's relay clients send it (the relay acks on receipt); relay:done ends the reply.
        each(ids, (i) => new Promise<void>((resolve) => void sockets[i]!.once('relay:done', () => resolve()).emit('relay:chat', { id: `r${i}-${turn}`, text: `Plan day ${turn + 1} for me, please.` }, () => {}))),
      ),
    );
  for (const r of rows) {
    if (r.step.startsWith('socket connect')) r.relayMs = r.floorMs = connectMs;
    else if (r.step.startsWith('chat:send')) r.relayMs = r.floorMs = replyMs[Number(/turn (\d+)/.exec(r.step)![1]) - 1];
    else if (r.step.startsWith('join')) r.floorMs = await step(`relay echo: ${r.step}`, () => each(ids, () => echoHttp(relay.ready.url, joinBytes.sent, joinBytes.received)));
    else if (!r.step.startsWith('disconnect')) r.floorMs = await step(`relay echo: ${r.step}`, () => each(ids, (i) => echoStep(sockets[i]!, r.traffic!)));
  }
  const disconnectMs = await step('relay: disconnect', async () => {
    for (const s of sockets) s.close();
  });
  for (const r of rows) if (r.step.startsWith('disconnect')) r.floorMs = disconnectMs;
} finally {
  await relay.kill('SIGTERM');
  await provider.kill('SIGTERM');
}

if (meterFile) {
  meterSnapshots.push(...fs.readFileSync(meterFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as SqliteMeterRow[]));
  // The first snapshot is taken before the first step, one follows each step (the last at exit).
  rows.forEach((r, i) => (r.sqliteMs = meterTotalMs(meterDifference(meterSnapshots[i + 1]!, meterSnapshots[i]!)) / f.participants));
}

const total = rows.reduce((a, r) => a + r.ms, 0);
const relayTotal = rows.reduce((a, r) => a + (r.relayMs ?? 0), 0);
const floorTotal = rows.reduce((a, r) => a + (r.floorMs ?? 0), 0);
console.log('\nserver CPU per participant, by step (relay: the same step through the bare relay, where it has one; floor: the relay carrying the step\'s bytes)');
const sqliteColumn = (ms: number | undefined) => (ms === undefined ? '' : `   SQLite ${ms.toFixed(2)} ms`);
const backendsColumn = (ms: number | undefined) => (ms === undefined ? '' : `   of which backends ${ms.toFixed(2)} ms`);
const floorColumn = (ms: number | undefined) => (ms === undefined ? '' : `   floor ${ms.toFixed(2)} ms`);
for (const r of rows)
  console.log(`  ${r.step.padEnd(42)} ${r.ms.toFixed(2).padStart(6)} ms${sqliteColumn(r.sqliteMs)}${backendsColumn(r.backendsMs)}${floorColumn(r.floorMs)}${r.relayMs !== undefined ? `   relay ${r.relayMs.toFixed(2)} ms` : ''}`);
const sqliteTotal = meterFile ? rows.reduce((a, r) => a + (r.sqliteMs ?? 0), 0) : undefined;
const backendsTotal = f.database === 'postgres' ? rows.reduce((a, r) => a + (r.backendsMs ?? 0), 0) : undefined;
console.log(`  ${'session in all'.padEnd(42)} ${total.toFixed(2).padStart(6)} ms${sqliteColumn(sqliteTotal)}${backendsColumn(backendsTotal)}${floorColumn(floorTotal)}   relay ${relayTotal.toFixed(2)} ms (${(total / relayTotal).toFixed(2)}×)`);
console.log(`  the platform's own work (session − floor): ${(total - floorTotal).toFixed(2)} ms; the steps the relay lacks cost ${(floorTotal - relayTotal).toFixed(2)} ms to carry`);
console.log('\ntraffic per participant (socket.io packets sent / received, mean length in characters; the join: HTTP body and answer)');
for (const r of rows) {
  const t = r.step.startsWith('join') ? `HTTP ${joinBytes.sent.toFixed(0)} / ${joinBytes.received.toFixed(0)}` : r.traffic ? `${r.traffic.sent.toFixed(1)} × ${r.traffic.sentBytes.toFixed(0)} / ${r.traffic.received.toFixed(1)} × ${r.traffic.receivedBytes.toFixed(0)}` : '';
  console.log(`  ${r.step.padEnd(42)} ${t}`);
}
if (meterFile) console.log(`\n${formatMeterRows(meterDifference(meterSnapshots[rows.length]!, meterSnapshots[0]!), f.participants).join('\n')}`);
if (meterFile) fs.rmSync(path.dirname(meterFile), { recursive: true, force: true });
if (f.profile) console.log(`\nstep windows for the profiles in ${f.profile} (monotonic µs): ${JSON.stringify(windows)}`);

/** Asks the server for its statement totals so far (SIGUSR2) and waits until they are in the file. */
async function meterSnapshot(pid: number, file: string): Promise<void> {
  const lines = () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').length - 1 : 0);
  const before = lines();
  process.kill(pid, 'SIGUSR2');
  for (let waited = 0; lines() === before; waited += 10) {
    if (waited > 5_000) throw new Error('the server wrote no SQLite meter snapshot within 5 s of SIGUSR2');
    await new Promise((r) => setTimeout(r, 10));
  }
}
