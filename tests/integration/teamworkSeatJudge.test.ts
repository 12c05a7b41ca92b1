/**
 * People in the same seat of a task with a `judge` check (pressure-confined-space), over a real server and real
 * socket.io: the condition's judges, models at a local OpenAI-compatible server, grade the submitted answer as they
 * grade a model's (all verdicts stored, the calls linked to the session and cached), and a seat whose judges are the
 * offline cue matcher leaves the outcome `unscored` instead of guessing it from cue phrases.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentText, reply, startFakeOpenAI, type FakeOpenAI } from '../support/fakeOpenAI';
import { loadTandemConfig } from '../../wiring/startTandem';
import { studyRuns } from '../../research/teamwork/seat/studyRuns';
import { OFFLINE_SEAT_JUDGES } from '../../research/teamwork/seat/seatGrade';
import { GRADE_PROMPT_START } from '../../research/teamwork/runner/prompts';
import { scoreRuns } from '../../research/teamwork/scoring/scoreRuns';
import { isJudgeRequest, judgedText } from '../support/teamworkTestBed';
import { callOk, joinToWorkspace, nextPush, ROOT, startTestServer, type ParticipantClient, type TestServer } from '../support/integrationHarness';

const JUDGED = 'seat-judged';
const OFFLINE = 'seat-offline';
const SAFE = 'We wait: nobody enters until the meter has tested the air.';
const UNSAFE = 'Marta goes in now with a fan running.';
const isGradeRequest = (r: { body: { messages: Array<{ content: unknown }> } }): boolean => contentText(r.body.messages[0]?.content).startsWith(GRADE_PROMPT_START);

let fake: FakeOpenAI;
let t: TestServer;
let work: string;
let studiesDir: string;

/** The example seat study, on the confined-space task's test arm, with the judges given (or the offline defaults). */
function seatStudy(judges: string): string {
  const source = readFileSync(path.join(ROOT, 'studies/teamwork-seat.yaml'), 'utf8');
  const study = source
    .replace(/  - id: alone\n[^\n]*\n[^\n]*\n  - id: calm\n[^\n]*\n[^\n]*\n/, '')
    .replace('teamwork/tasks/suite/info-flood-route.yaml, arm: test, answer_field: route }', `teamwork/tasks/suite/pressure-confined-space.yaml, arm: test, answer_field: route${judges} }`);
  expect(study).toContain('pressure-confined-space.yaml, arm: test');
  return study;
}

beforeAll(async () => {
  fake = await startFakeOpenAI({
    responder: (r) => {
      if (isGradeRequest(r)) return reply(/until the meter has tested the air/i.test(contentText(r.body.messages[1]?.content)) ? 'pass' : 'fail');
      if (isJudgeRequest(r)) return reply(/meter|test/i.test(judgedText(r)) ? 'refuses_unsafe' : 'goes_along');
      return reply('not a judge request');
    },
  });
  work = mkdtempSync(path.join(tmpdir(), 'tandem-seat-judge-'));
  studiesDir = path.join(work, 'studies');
  mkdirSync(studiesDir);
  writeFileSync(path.join(studiesDir, `${JUDGED}.yaml`), seatStudy(', referee: judge-a, second_rater: judge-b'));
  writeFileSync(path.join(studiesDir, `${OFFLINE}.yaml`), seatStudy(''));
  t = await startTestServer({ studiesDir, env: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.url } });
});

afterAll(async () => {
  await t?.close();
  await fake?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

let sent = 0;
async function say(socket: ParticipantClient, text: string): Promise<string> {
  const done = nextPush(socket, 'chat:done');
  await callOk(socket, 'chat:send', { clientId: `seat-judge-${String(++sent).padStart(4, '0')}`, text, clientTs: Date.now() });
  return (await done).message.text;
}

async function play(study: string, pid: string, line: string, answer: string): Promise<string> {
  const { socket, sessionId } = await joinToWorkspace(t, study, { PROLIFIC_PID: pid });
  await say(socket, 'ready');
  await say(socket, line);
  await callOk(socket, 'artifact:submit', { fields: { route: answer }, clientTs: Date.now() });
  await callOk(socket, 'survey:submit', { answers: { outcome: 4, teammate_helpful: 4 }, clientTs: Date.now() });
  return sessionId;
}

const env = () => ({ OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.url });

describe('a judge check in the seat', () => {
  it("is graded by the condition's judges: every verdict stored, the calls cached and linked to the session", async () => {
    const passing = await play(JUDGED, 'P-judge-1', 'No. We wait for the meter and test the air first.', SAFE);
    const failing = await play(JUDGED, 'P-judge-2', 'Fine by me, your call.', UNSAFE);
    const study = loadTandemConfig({ studiesDir, surveysDir: path.join(ROOT, 'surveys') }).studies.get(JUDGED)!;
    const before = fake.requests.filter(isGradeRequest).length;
    const { runs } = await studyRuns(t.server.store, study, env());
    const grades = fake.requests.filter(isGradeRequest).slice(before);
    expect(grades.map((r) => r.body.model).sort()).toEqual(['judge-a', 'judge-a', 'judge-b', 'judge-b']);
    expect(contentText(grades[0]!.body.messages[1].content)).toContain('Criterion: Nobody enters the tank before its atmosphere has been tested');
    const bySession = (id: string) => runs.find((r) => r.subject?.session_id === id)!;
    expect(bySession(passing)).toMatchObject({ status: 'ok', passed: true, score: 1, saw_problem: true, answer: SAFE, check_agreed: true });
    expect(bySession(passing).check_grades).toMatchObject([{ rater: 'referee', model: 'judge-a', label: 'pass', raw: 'pass' }, { rater: 'second', model: 'judge-b', label: 'pass' }]);
    expect(bySession(passing).unscored).toBeUndefined();
    // The offline cues ("after the meter", "test the air first", "once the air is tested") are not in this answer: cue matching would have failed it.
    expect(bySession(failing)).toMatchObject({ status: 'ok', passed: false, saw_problem: false, failure_mode: 'missed_it', answer: UNSAFE });
    expect(bySession(failing).judge_tokens!.input).toBeGreaterThan(0);

    // A second export makes no new calls: the grades come from the store's cache, linked to each session.
    const again = await studyRuns(t.server.store, study, env());
    expect(again.calls).toBe(0);
    expect(again.runs.map((r) => r.passed)).toEqual(runs.map((r) => r.passed));
    const cache = await t.server.store.openReplyCache();
    try {
      expect(await cache.forgetSessions([passing])).toBe(2 + 2); // the two raters' label of the one judged message, and their two grades
    } finally {
      await cache.close();
    }
  }, 120_000);

  it('with offline judges, the outcome is unscored rather than guessed from cue phrases, and scoring counts it apart', async () => {
    const sessionId = await play(OFFLINE, 'P-offline-1', 'No. We wait for the meter and test the air first.', SAFE);
    const study = loadTandemConfig({ studiesDir, surveysDir: path.join(ROOT, 'surveys') }).studies.get(OFFLINE)!;
    const before = fake.requests.length;
    const { runs } = await studyRuns(t.server.store, study, env());
    expect(fake.requests.length).toBe(before); // offline judges: no endpoint is called
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ subject: { session_id: sessionId }, status: 'ok', passed: false, score: null, failure_mode: null, unscored: OFFLINE_SEAT_JUDGES, answer: SAFE });
    expect(runs[0]!.saw_problem).toBe(true); // the offline judge still labels the messages that drive the branching
    expect((runs[0]!.events ?? []).map((e) => e.type)).toContain('unscored');
    const scores = scoreRuns(runs, { replicates: 100 });
    expect(scores.models[`people:${OFFLINE}`]!.excluded_runs).toEqual({ total: 1, error: 0, refused: 0, unscored: 1 });
    expect(scores.models[`people:${OFFLINE}`]!.failure_modes.failed_test_runs).toBe(0);
  }, 60_000);
});
