/**
 * People in the same seat, over a real server: six participants (two per arm) chat over real socket.io in
 * the subject's seat of info-flood-route, opposite the scripted dispatcher. The judges are models at a
 * local OpenAI-compatible server reached through the real `openai` client. Shown: the brief and round 1
 * arrive after the first message; the flood warning comes only after a message the judges label
 * asks_specific; each message is judged once however often the conversation is replayed; then
 * `teamwork from-study` (the CLI, reading the server's SQLite store) writes runs with zero new calls,
 * `teamwork score` scores them, and `teamwork report` puts the people beside a model.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, copyFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpError, reply, startFakeOpenAI, type FakeOpenAI } from '../support/fakeOpenAI';
import { STORE_ENGINES } from '../support/testStores';
import { loadTandemConfig } from '../../wiring/startTandem';
import { studyRuns } from '../../research/teamwork/seat/studyRuns';
import { isJudgeRequest, judgedText } from '../support/teamworkTestBed';
import { parseSeatReply, SEAT_NOTES } from '../../common/seatReply';
import { call, callOk, joinToWorkspace, nextPush, ROOT, startTestServer, type ParticipantClient, type TestServer } from '../support/integrationHarness';
import { nodeArgsFor } from '../support/testEntries';

const STUDY = 'seat-study';
const TEST_ONLY = 'seat-test-only';
const FLOOD = 'there is a flood warning, the route 9 bridge at Kell closes at 14:00';
const CONVOY = 'Convoy report: all six trucks fuelled, drivers rested.';

/** The judges' label: asks_specific for a question about the roads, asks_general for "any updates". */
function judgeLabel(message: string): string {
  if (/road|closure|alert/i.test(message)) return 'asks_specific';
  if (/any updates/i.test(message)) return 'asks_general';
  if (/route \d+/i.test(message)) return 'decides';
  return 'other';
}

let fake: FakeOpenAI;
let t: TestServer;
let work: string;
let studiesDir: string;

beforeAll(async () => {
  fake = await startFakeOpenAI({ responder: (r) => (isJudgeRequest(r) ? reply(judgeLabel(judgedText(r))) : reply('not a judge request')) });
  work = mkdtempSync(path.join(tmpdir(), 'tandem-seat-'));
  studiesDir = path.join(work, 'studies');
  mkdirSync(studiesDir);
  const study = readFileSync(path.join(ROOT, 'studies/teamwork-seat.yaml'), 'utf8').replace(/answer_field: route \}/g, 'answer_field: route, referee: judge-a, second_rater: judge-b }');
  expect(study).toContain('referee: judge-a');
  writeFileSync(path.join(studiesDir, `${STUDY}.yaml`), study);
  // A study with the test arm only (the retry and engine test below needs to know the arm of its one session).
  const testOnly = study.replace(/  - id: alone\n[^\n]*\n[^\n]*\n  - id: calm\n[^\n]*\n[^\n]*\n/, '');
  expect(testOnly.match(/provider: teamwork/g)).toHaveLength(1);
  writeFileSync(path.join(studiesDir, `${TEST_ONLY}.yaml`), testOnly);
  t = await startTestServer({ studiesDir, env: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.url } });
});

afterAll(async () => {
  await t?.close();
  await fake?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...nodeArgsFor(path.join(ROOT, 'cli/teamwork.ts')), ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: t.dataDir, DATABASE_URL: '', OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

let sent = 0;
/** Sends one chat message and resolves with the team's stored reply. */
async function say(socket: ParticipantClient, text: string): Promise<string> {
  const done = nextPush(socket, 'chat:done');
  await callOk(socket, 'chat:send', { clientId: `seat-msg-${String(++sent).padStart(4, "0")}`, text, clientTs: Date.now() });
  const { message } = await done;
  expect(message.status).toBe('complete');
  return message.text;
}

interface Played {
  sessionId: string;
  arm: string;
  replies: string[];
}

async function play(pid: string, lines: (arm: string) => string[], route: (arm: string) => string): Promise<Played> {
  const joined = await joinToWorkspace(t, STUDY, { PROLIFIC_PID: pid });
  const session = await t.server.store.sessions.get(joined.sessionId);
  const arm = session!.conditionId;
  const replies: string[] = [];
  for (const line of lines(arm)) replies.push(await say(joined.socket, line));
  await callOk(joined.socket, 'artifact:submit', { fields: { route: route(arm) }, clientTs: Date.now() });
  // The survey per arm (surveys/teamwork-seat-post.yaml): the alone arm is not asked about a teammate, and cannot answer it.
  const survey = (await callOk(joined.socket, 'session:state', {})) as { survey: { items: Array<{ id: string }> } };
  const items = survey.survey.items.map((i) => i.id);
  expect(items).toEqual(arm === 'alone' ? ['outcome', 'brief_enough', 'comments'] : ['outcome', 'teammate_helpful', 'comments']);
  if (arm === 'alone') {
    const refused = await call(joined.socket, 'survey:submit', { answers: { outcome: 4, teammate_helpful: 4 }, clientTs: Date.now() });
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_input', message: 'unknown survey item "teammate_helpful"' } });
  }
  await callOk(joined.socket, 'survey:submit', { answers: arm === 'alone' ? { outcome: 4, brief_enough: 4 } : { outcome: 4, teammate_helpful: 4 }, clientTs: Date.now() });
  return { sessionId: joined.sessionId, arm, replies };
}

describe('people in the same seat', () => {
  it('runs a session in the seat over socket.io, branches on the judges, and exports, scores and reports it as runs', async () => {
    // Balanced assignment: the first three joins take one arm each, the next three one each again.
    const first: Played[] = [];
    for (const pid of ['P-seat-1', 'P-seat-2', 'P-seat-3'])
      first.push(await play(pid, () => ['ready', 'Before we pick: are there any road closures or alerts on either route?', 'Then route 12.'], () => 'route 12'));
    expect(first.map((p) => p.arm).sort()).toEqual(['alone', 'calm', 'test']);
    const second: Played[] = [];
    for (const pid of ['P-seat-4', 'P-seat-5', 'P-seat-6'])
      second.push(
        await play(pid, (arm) => (arm === 'test' ? ['ready', 'Any updates?', 'OK, route 9 then.'] : ['ready', 'Which route is clear?', 'Route 12.']), (arm) => (arm === 'test' ? 'route 9' : 'route 12')),
      );
    expect(second.map((p) => p.arm).sort()).toEqual(['alone', 'calm', 'test']);

    const byArm = (list: Played[], arm: string) => list.find((p) => p.arm === arm)!;
    // The first reply: the arm's brief, then round 1's posts.
    expect(byArm(first, 'alone').replies[0]).toContain('The regional dispatch office has issued a flood warning');
    expect(byArm(first, 'alone').replies[0]).toContain('You are working on your own');
    // The reply is the structured seat reply (common/seatReply.ts): the brief, the round with what is expected, each post by its speaker.
    expect(parseSeatReply(byArm(first, 'alone').replies[0]!)?.map((p) => p.kind)).toEqual(['brief', 'round']);
    expect(parseSeatReply(byArm(first, 'alone').replies[0]!)?.[1]).toEqual({ kind: 'round', round: 1, rounds: 4, note: SEAT_NOTES.alone });
    expect(byArm(first, 'test').replies[0]).toContain('with Dana, the dispatcher');
    expect(parseSeatReply(byArm(first, 'test').replies[0]!)?.slice(1)).toEqual([
      { kind: 'round', round: 1, rounds: 4, note: SEAT_NOTES.team },
      { kind: 'post', speaker: 'Dana', seat: 'teammate', text: 'Morning. Convoy is loaded and the drivers are ready.' },
    ]);
    expect(byArm(first, 'test').replies[0]).not.toContain('flood');
    expect(byArm(first, 'test').replies[0]).not.toContain('"Name: message"');
    expect(byArm(first, 'calm').replies[0]).toContain('**Dana** (teammate): Heads up: the route 9 bridge at Kell is closed');
    // Branching on the judges' label: asking about the roads brings the warning, "any updates?" the convoy report.
    expect(byArm(first, 'test').replies[1]).toContain(FLOOD);
    const general = second.find((p) => p.arm === 'test')!;
    expect(general.replies[1]).toBe(`**Round 2 of 4** · ${SEAT_NOTES.team}\n\n**Dana** (teammate): ${CONVOY}`);
    expect(general.replies.join('\n')).not.toContain('flood');

    // Every participant message after the first is judged once per rater, though each turn replays the conversation.
    const judged = fake.requests.filter(isJudgeRequest);
    expect(judged).toHaveLength(6 * 2 * 2);
    expect(new Set(judged.map((r) => `${r.body.model}|${judgedText(r)}|${JSON.stringify(r.body.messages)}`)).size).toBe(judged.length);

    const unknown = await cli(['from-study', '--study', 'no-such-study', '--out', path.join(work, 'x'), '--studies', studiesDir]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--study: no study "no-such-study"');
    const badFlag = await cli(['from-study', '--study', STUDY, '--studies', studiesDir]);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain('--out: ');

    const out = path.join(work, 'people');
    const exported = await cli(['from-study', '--study', STUDY, '--out', out, '--studies', studiesDir, '--replicates', '200']);
    expect(exported.stderr).not.toMatch(/Error|teamwork: (?!warning: )/); // warnings (small n, settings unknown) are expected
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('6 sessions as runs (left out: 0 pilot, 0 unfinished, 0 declined); 0 model calls, 24 cache hits');
    expect(fake.requests.filter(isJudgeRequest)).toHaveLength(24);

    const runs = readFileSync(path.join(out, 'runs.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(runs).toHaveLength(6);
    const ids = [...first, ...second].map((p) => p.sessionId).sort();
    expect(runs.map((r) => r.subject.session_id).sort()).toEqual(ids);
    for (const r of runs) {
      expect(r).toMatchObject({ model: `people:${STUDY}`, subject: { kind: 'participant', study: STUDY }, task: 'info-flood-route', dimension: 'information', status: 'ok' });
      expect(r.messages.every((m: { session_id: string }) => m.session_id === r.subject.session_id)).toBe(true);
      for (const m of r.messages.filter((x: { seat: string }) => x.seat === 'subject')) expect(m.role).toBe('user');
      expect(r.events.some((e: { type: string }) => e.type === 'replay_mismatch')).toBe(false);
    }
    const raw = readFileSync(path.join(out, 'runs.jsonl'), 'utf8');
    expect(raw).not.toContain('P-seat-'); // platform ids never reach the runs
    const passedTest = runs.find((r) => r.arm === 'test' && r.passed)!;
    expect(passedTest.saw_problem).toBe(true);
    const labelled = passedTest.messages.filter((m: { labels?: unknown }) => m.labels);
    expect(labelled.map((m: { labels: { final: string } }) => m.labels.final)).toEqual(['asks_specific', 'decides']);
    expect(labelled[0].labels.referee).toMatchObject({ model: 'judge-a', label: 'asks_specific' });
    expect(labelled[0].labels.second).toMatchObject({ model: 'judge-b', label: 'asks_specific' });
    const failedTest = runs.find((r) => r.arm === 'test' && !r.passed)!;
    expect(failedTest).toMatchObject({ answer: 'route 9', saw_problem: false, failure_mode: 'missed_it', submitted: true });

    const scored = await cli(['score', out, '--replicates', '200']);
    expect(scored.code).toBe(0);
    const scores = JSON.parse(readFileSync(path.join(out, 'scores.json'), 'utf8'));
    const people = scores.models[`people:${STUDY}`];
    expect(people.solved_alone).toEqual(['info-flood-route']);
    expect(people.dimensions.information).toMatchObject({ n_gated: 1, baseline: 100, test: 50, drop: 50 });
    expect(people.failure_modes).toMatchObject({ missed_it: 1, gave_in: 0 });
    expect(people.overall).toEqual({ score: 50, ci95: [50, 50] }); // one gated task: every resample is that task

    // A model on the same task, then one leaderboard with both.
    const tasks = path.join(work, 'tasks');
    mkdirSync(tasks);
    copyFileSync(path.join(ROOT, 'teamwork/tasks/suite/info-flood-route.yaml'), path.join(tasks, 'info-flood-route.yaml'));
    const model = path.join(work, 'steady');
    expect((await cli(['run', '--tasks', tasks, '--model', 'offline-steady', '--seeds', '2', '--out', model, '--replicates', '200'])).code).toBe(0);
    const board = path.join(work, 'board');
    const reported = await cli(['report', out, model, '--out', board, '--replicates', '200']);
    expect(reported.code).toBe(0);
    const csv = readFileSync(path.join(board, 'leaderboard.csv'), 'utf8').trim().split('\n');
    expect(csv.slice(1).map((l) => l.split(',').slice(0, 3))).toEqual([
      ['1', 'offline-steady', '100.00'],
      ['2', `people:${STUDY}`, '50.00'],
    ]);
  }, 300_000); // several CLI runs: minutes on a loaded machine

  it('the judges\' replies cached during a live session are linked to it, so a withdrawal purges them before any export', async () => {
    const { socket, sessionId } = await joinToWorkspace(t, TEST_ONLY, { PROLIFIC_PID: 'P-seat-withdraw' });
    await say(socket, 'ready');
    expect(await say(socket, 'Any road closures or alerts on route 9?')).toContain(FLOOD);
    const cache = await t.server.store.openReplyCache();
    try {
      // Two raters judged the one message after "ready": both cached replies carry the session.
      expect(await cache.forgetSessions([sessionId])).toBe(2);
      expect(await cache.forgetSessions([sessionId])).toBe(0);
    } finally {
      await cache.close();
    }
  });

  it.each(STORE_ENGINES)('a judge failure is a retryable chat error, the retry answers on the branching, and the export reads the %s store', async (engine) => {
    const server = await startTestServer({ engine, studiesDir, env: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.url } });
    try {
      const { socket, sessionId } = await joinToWorkspace(server, TEST_ONLY, { PROLIFIC_PID: `P-retry-${engine}` });
      expect(await say(socket, 'ready')).toContain('**Dana** (teammate): Morning. Convoy is loaded');
      // Both judges get a 400 (not retried by the provider): the team cannot answer, and says so retryably.
      fake.script(httpError(400), httpError(400));
      const failed = nextPush(socket, 'chat:error');
      await callOk(socket, 'chat:send', { clientId: `retry-${engine}-0001`, text: 'Any road closures or alerts on route 9?', clientTs: Date.now() });
      expect(await failed).toMatchObject({ retryable: true });
      // Both judges were asked: the second rater's request may still be on its way when the first one's 400 ends the turn.
      await expect.poll(() => fake.pending, { timeout: 10_000 }).toBe(0);
      const done = nextPush(socket, 'chat:done');
      await callOk(socket, 'chat:retry', { clientTs: Date.now() });
      expect((await done).message.text).toContain(FLOOD);
      expect(await call(socket, 'chat:retry', { clientTs: Date.now() })).toMatchObject({ ok: false });
      await callOk(socket, 'artifact:submit', { fields: { route: 'route 12' }, clientTs: Date.now() });
      await callOk(socket, 'survey:submit', { answers: { outcome: 5, teammate_helpful: 5 }, clientTs: Date.now() });

      const study = loadTandemConfig({ studiesDir, surveysDir: path.join(ROOT, 'surveys') }).studies.get(TEST_ONLY)!;
      const judgeCalls = fake.requests.filter(isJudgeRequest).length;
      const { runs, calls, cacheHits } = await studyRuns(server.server.store, study, { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.url });
      expect({ calls, cacheHits, judgeCalls: fake.requests.filter(isJudgeRequest).length }).toEqual({ calls: 0, cacheHits: 2, judgeCalls });
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ model: `people:${TEST_ONLY}`, arm: 'test', seed: 1, status: 'ok', passed: true, saw_problem: true, answer: 'route 12', subject: { session_id: sessionId } });
      // The export linked the judges' cached replies to the session, so a withdrawal purges them.
      const cache = await server.server.store.openReplyCache();
      try {
        expect(await cache.forgetSessions([sessionId])).toBe(2);
      } finally {
        await cache.close();
      }
    } finally {
      await server.close();
    }
  }, 60_000);
});
