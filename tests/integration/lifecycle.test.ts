/**
 * Server-level behaviour around sessions: the time limit, pilot sessions and balance through /api/join,
 * start-up validation, the SPA fallback, and a reload in the middle of a streaming reply.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTandem } from '../../wiring/startTandem';
import { ConfigError } from '../../lib/studyFiles/studyConfig';
import { createLogger } from '../../lib/logger';
import { reply, startFakeOpenAI } from '../support/fakeOpenAI';
import { copyVisualizationStudy } from '../support/preregistrationFixture';
import { call, callOk, connectSocket, eventually, join, nextPush, ROOT, startTestServer, toWorkspace, type TestServer } from '../support/integrationHarness';
import { installSqliteMeter } from '../harness/sqliteMeter';
import { SESSION_SQL } from '../../lib/storage/sql/sessions';
import { artifactValues, surveyAnswers } from '../../research/simulation/participantInputs';

const open: TestServer[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});
async function server(options: Parameters<typeof startTestServer>[0] = {}) {
  const t = await startTestServer(options);
  open.push(t);
  return t;
}

/** A session state without the server's clock, which moves between two answers. */
const withoutClock = (state: object) => Object.fromEntries(Object.entries(state).filter(([key]) => key !== 'serverNow'));

describe('time limit', () => {
  it('ends a working session as timed_out at its deadline and pushes the new state', async () => {
    let clock = Date.parse('2026-11-30T09:00:00Z');
    const t = await server({ now: () => clock });
    const j = await join(t, 'travel-planning', { PROLIFIC_PID: 'timer-1' });
    const socket = await connectSocket(t, j.token);
    await toWorkspace(socket);
    const state = await callOk(socket, 'session:state', {});
    expect(state.deadline).toBe(clock + 20 * 60_000);

    // Jump past the deadline: the next action finds the session timed out.
    clock += 20 * 60_000 + 1;
    const after = await callOk(socket, 'session:state', {});
    expect(after).toMatchObject({ step: 'complete', status: 'timed_out', completion: { outcome: 'timed_out', code: 'T0TRV2026' } });
    const types = (await t.server.store.events.listForSession(j.sessionId)).map((e) => e.type);
    expect(types.slice(-3)).toEqual(['session.timed_out', 'step.changed', 'session.completed']);
    // Asking again changes nothing.
    await callOk(socket, 'session:state', {});
    expect((await t.server.store.events.listForSession(j.sessionId)).map((e) => e.type)).toEqual(types);
  });

  it('pushes session:state to a connected participant when the time runs out', async () => {
    // A clock running 20 minutes ahead once the participant has consented makes the deadline ~now.
    let offset = 0;
    const t = await server({ now: () => Date.now() + offset });
    const j = await join(t, 'travel-planning', { PROLIFIC_PID: 'timer-2' });
    const socket = await connectSocket(t, j.token);
    await toWorkspace(socket);
    offset = 20 * 60_000 - 300; // the deadline is now ~300 ms away
    // Re-arm: the timer was armed at consent with the old clock; a reconnect arms it with the new one.
    socket.disconnect();
    const again = await connectSocket(t, j.token);
    const pushed = await nextPush(again, 'session:state', (s) => s.status === 'timed_out', 5_000);
    expect(pushed.completion?.code).toBe('T0TRV2026');
  });

  it('arms the time limit at a connect from the row the handshake read: no second read of the session', async () => {
    const t = await server();
    const j = await join(t, 'travel-planning', { PROLIFIC_PID: 'timer-handshake' });
    const first = await connectSocket(t, j.token);
    await toWorkspace(first);
    first.disconnect();
    const opened = async () => (await t.server.store.events.listForSession(j.sessionId)).filter((e) => e.type === 'connection.opened').length;
    // Every statement this process runs is counted by its SQL from here (the server runs in this process).
    const meter = installSqliteMeter();
    try {
      const again = await connectSocket(t, j.token);
      await eventually('the reconnect recorded', async () => (await opened()) === 2);
      const sessionReads = meter.snapshot().filter((r) => r.sql === SESSION_SQL.get.sqlite).reduce((n, r) => n + r.calls, 0);
      // The handshake's token lookup read the row (participant_tokens joined to sessions); before, the time limit's
      // first arm read it again with sessions.get.
      expect(sessionReads).toBe(0);
      expect(meter.snapshot().some((r) => r.sql.startsWith('SELECT s.* FROM participant_tokens t JOIN sessions s'))).toBe(true);
      again.disconnect();
    } finally {
      meter.uninstall();
    }
  });

  it('records a consent after session:state without reading the session first: the compare-and-set checks the step', async () => {
    const t = await server();
    const j = await join(t, 'travel-planning', { PROLIFIC_PID: 'consent-no-read' });
    const socket = await connectSocket(t, j.token);
    const before = await callOk(socket, 'session:state', {});
    const meter = installSqliteMeter();
    try {
      const after = await callOk(socket, 'consent:respond', { accept: true, version: before.consent.version, clientTs: Date.now() });
      expect(after.step).toBe('instructions');
      const reads = (sql: string) => meter.snapshot().filter((r) => r.sql === sql).reduce((n, r) => n + r.calls, 0);
      // No read of the row: the consent made only its compare-and-set, and its answer is built from the row that
      // returned (a session at the instructions has no messages, draft or uploads to read). It is the state a read finds.
      expect(reads(SESSION_SQL.get.sqlite)).toBe(0);
      expect(meter.snapshot().filter((r) => /FROM (messages|artifact_drafts|uploads) WHERE/.test(r.sql))).toEqual([]);
      expect(withoutClock(after)).toEqual(withoutClock(await callOk(socket, 'session:state', {})));
      // A repeat (double click) finds the session past consent and changes nothing.
      expect(await callOk(socket, 'consent:respond', { accept: true, version: before.consent.version, clientTs: Date.now() })).toMatchObject({ step: 'instructions' });
      const types = (await t.server.store.events.listForSession(j.sessionId)).map((e) => e.type);
      expect(types.filter((e) => e === 'consent.accepted')).toHaveLength(1);
    } finally {
      meter.uninstall();
    }
    // A decline ends the session: its answer, from the changed row too, is what a read finds (the completion code included).
    const other = await join(t, 'travel-planning', { PROLIFIC_PID: 'consent-no-read-declines' });
    const otherSocket = await connectSocket(t, other.token);
    await callOk(otherSocket, 'session:state', {});
    const declined = await callOk(otherSocket, 'consent:respond', { accept: false, version: before.consent.version, clientTs: Date.now() });
    expect(declined).toMatchObject({ step: 'complete', status: 'declined', completion: { outcome: 'declined' } });
    expect(withoutClock(declined)).toEqual(withoutClock(await callOk(otherSocket, 'session:state', {})));
  });

  it('leaves the instructions without reading the session first while the deadline is ahead; past it, records the time-out', async () => {
    let clock = Date.parse('2026-11-30T09:00:00Z');
    const t = await server({ now: () => clock });
    const j = await join(t, 'travel-planning', { PROLIFIC_PID: 'advance-no-read' });
    const socket = await connectSocket(t, j.token);
    const before = await callOk(socket, 'session:state', {});
    await callOk(socket, 'consent:respond', { accept: true, version: before.consent.version, clientTs: clock });
    const meter = installSqliteMeter();
    try {
      const advanced = await callOk(socket, 'step:advance', { from: 'instructions', clientTs: clock });
      expect(advanced).toMatchObject({ step: 'workspace' });
      // No read of the row, nor of the workspace's rows (none exist when it opens): the answer is the changed row's state.
      expect(meter.snapshot().filter((r) => r.sql === SESSION_SQL.get.sqlite).reduce((n, r) => n + r.calls, 0)).toBe(0);
      expect(meter.snapshot().filter((r) => /FROM (messages|artifact_drafts|uploads) WHERE/.test(r.sql))).toEqual([]);
      expect(withoutClock(advanced)).toEqual(withoutClock(await callOk(socket, 'session:state', {})));
      // A repeat finds the session past the instructions and changes nothing.
      expect(await callOk(socket, 'step:advance', { from: 'instructions', clientTs: clock })).toMatchObject({ step: 'workspace' });
    } finally {
      meter.uninstall();
    }
    expect((await t.server.store.events.listForSession(j.sessionId)).filter((e) => e.type === 'step.changed')).toHaveLength(2);

    // Another participant still at the instructions when the clock passes the deadline: the time-out is recorded.
    const late = await join(t, 'travel-planning', { PROLIFIC_PID: 'advance-late' });
    const lateSocket = await connectSocket(t, late.token);
    const lateState = await callOk(lateSocket, 'session:state', {});
    await callOk(lateSocket, 'consent:respond', { accept: true, version: lateState.consent.version, clientTs: clock });
    clock += 21 * 60_000;
    const refused = await call(lateSocket, 'step:advance', { from: 'instructions', clientTs: clock });
    expect(refused).toMatchObject({ ok: false, error: { code: 'session_over' } });
    expect((await t.server.store.events.listForSession(late.sessionId)).map((e) => e.type)).toContain('session.timed_out');
  });

  it('submits the artifact and completes the survey without reading the session first; at another step the step is refused first', async () => {
    const t = await server();
    const j = await join(t, 'travel-planning', { PROLIFIC_PID: 'survey-no-read' });
    const socket = await connectSocket(t, j.token);
    await toWorkspace(socket);
    const workspace = await callOk(socket, 'session:state', {});
    const answers = surveyAnswers(workspace, () => 0.5);
    // At the workspace: refused for the step, even with answers the survey would refuse; nothing is written.
    const eventsBefore = (await t.server.store.events.listForSession(j.sessionId)).length;
    expect(await call(socket, 'survey:submit', { answers, clientTs: Date.now() })).toMatchObject({ ok: false, error: { code: 'wrong_step' } });
    expect(await call(socket, 'survey:submit', { answers: { nope: 1 }, clientTs: Date.now() })).toMatchObject({ ok: false, error: { code: 'wrong_step' } });
    expect((await t.server.store.events.listForSession(j.sessionId)).length).toBe(eventsBefore);
    const sessionReads = (meter: ReturnType<typeof installSqliteMeter>) => meter.snapshot().filter((r) => r.sql === SESSION_SQL.get.sqlite).reduce((n, r) => n + r.calls, 0);
    const submitMeter = installSqliteMeter();
    try {
      expect(await callOk(socket, 'artifact:submit', { fields: artifactValues(workspace, {}, 1), clientTs: Date.now() })).toMatchObject({ step: 'survey' });
      // Two reads of the row: the store call's check of the locked row (SQLite's twin of the PostgreSQL function) and the
      // answer's session:state. No read before them: the store call checks the step and the deadline.
      expect(sessionReads(submitMeter)).toBe(2);
    } finally {
      submitMeter.uninstall();
    }
    // A second submission is refused for the step, as before.
    expect(await call(socket, 'artifact:submit', { fields: artifactValues(workspace, {}, 2), clientTs: Date.now() })).toMatchObject({ ok: false, error: { code: 'wrong_step' } });
    const meter = installSqliteMeter();
    try {
      const done = await callOk(socket, 'survey:submit', { answers, clientTs: Date.now() });
      expect(done).toMatchObject({ step: 'complete', status: 'completed', surveySubmitted: true });
      // One read of the row: the answer's session:state. The submission itself made only its compare-and-set.
      expect(sessionReads(meter)).toBe(1);
    } finally {
      meter.uninstall();
    }
    // A second submission finds the session over and writes nothing.
    expect(await call(socket, 'survey:submit', { answers, clientTs: Date.now() })).toMatchObject({ ok: false, error: { code: 'session_over' } });
    expect((await t.server.store.surveyAnswers.listForSession(j.sessionId)).length).toBe(Object.keys(answers).length);
  });

  it('refuses a submission past the deadline as a read would: the time-out is recorded and nothing is submitted', async () => {
    let clock = Date.parse('2026-11-30T09:00:00Z');
    const t = await server({ now: () => clock });
    const j = await join(t, 'travel-planning', { PROLIFIC_PID: 'submit-late' });
    const socket = await connectSocket(t, j.token);
    await toWorkspace(socket);
    const workspace = await callOk(socket, 'session:state', {});
    clock += 21 * 60_000;
    const refused = await call(socket, 'artifact:submit', { fields: artifactValues(workspace, {}, 1), clientTs: clock });
    expect(refused).toMatchObject({ ok: false, error: { code: 'session_over' } });
    const types = (await t.server.store.events.listForSession(j.sessionId)).map((e) => e.type);
    expect(types).toContain('session.timed_out');
    expect(types).not.toContain('artifact.submitted');
    expect(types).not.toContain('chat.stop_requested');
  });

  it('arms the time limit from the consent answer itself: the time-out is pushed with no further read or reconnect', async () => {
    // A copy of the study whose limit is 1.8 s, so the timer the consent answer arms is the one that fires (the
    // server's sweep, which would also end the session, runs only every minute here).
    const files = copyVisualizationStudy();
    try {
      files.edit(files.studyFile, 'time_limit_minutes: 30', 'time_limit_minutes: 0.03');
      const t = await server({ studiesDir: files.studiesDir, surveysDir: files.surveysDir, timeLimitSweepMs: 60_000 });
      const j = await join(t, 'visualization', { PROLIFIC_PID: 'timer-consent' });
      const socket = await connectSocket(t, j.token);
      const before = await callOk(socket, 'session:state', {});
      expect(before.deadline).toBeNull(); // nothing to arm at connect: the clock starts at consent
      const timedOut = nextPush(socket, 'session:state', (s) => s.status === 'timed_out', 8_000);
      const consented = await callOk(socket, 'consent:respond', { accept: true, version: before.consent.version, clientTs: Date.now() });
      expect(consented.deadline! - consented.serverNow).toBeLessThanOrEqual(1_800);
      const pushed = await timedOut;
      expect(pushed.step).toBe('complete');
      expect(Date.now()).toBeGreaterThanOrEqual(consented.deadline! - 50);
    } finally {
      files.remove();
    }
  });

  it('lets a participant who already submitted finish the survey after the deadline', async () => {
    let clock = Date.parse('2026-11-30T09:00:00Z');
    const t = await server({ now: () => clock });
    const j = await join(t, 'travel-planning', { PROLIFIC_PID: 'timer-3' });
    const socket = await connectSocket(t, j.token);
    await toWorkspace(socket);
    await callOk(socket, 'artifact:submit', { fields: { itinerary: 'Day 1: Lisbon…' }, clientTs: clock });
    clock += 60 * 60_000;
    const done = await callOk(socket, 'survey:submit', { answers: { outcome: 4, ai_usefulness: 4, communication: 4, satisfaction: 4 }, clientTs: clock });
    expect(done).toMatchObject({ status: 'completed', completion: { code: 'C1TRV2026' } });
  });
});

describe('assignment through /api/join', () => {
  it('balances conditions over non-pilot sessions; pilot sessions are flagged and not counted', async () => {
    const t = await server();
    for (let i = 0; i < 21; i++) await join(t, 'visualization', { PROLIFIC_PID: `bal-${i}` });
    const counts = [...(await t.server.store.sessions.countByCondition('visualization')).values()];
    expect(counts.sort()).toEqual([10, 11]);

    (await t.server.store.studies.setStatus('visualization', 'pilot', Date.now()));
    for (let i = 0; i < 5; i++) await join(t, 'visualization', { PROLIFIC_PID: `pilot-${i}` });
    const sessions = (await t.server.store.sessions.listByStudy('visualization'));
    expect(sessions.filter((s) => s.isPilot)).toHaveLength(5);
    expect([...(await t.server.store.sessions.countByCondition('visualization')).values()].reduce((a, b) => a + b)).toBe(21);
  });
});

describe('start-up', () => {
  it('refuses to start with a broken study file, naming file, line and field; nothing listens', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-broken-'));
    try {
      fs.cpSync(path.join(ROOT, 'studies'), path.join(dir, 'studies'), { recursive: true });
      const file = path.join(dir, 'studies', 'travel-planning.yaml');
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('max_tokens: 1024', 'max_tokens: -5'));
      const attempt = startTandem({
        dataDir: path.join(dir, 'data'),
        port: 0,
        studiesDir: path.join(dir, 'studies'),
        surveysDir: path.join(ROOT, 'surveys'),
        logger: createLogger('silent'),
      });
      await expect(attempt).rejects.toBeInstanceOf(ConfigError);
      await expect(attempt).rejects.toThrow(/travel-planning\.yaml:\d+: conditions\.0\.max_tokens: /);
      expect(fs.existsSync(path.join(dir, 'data'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serves the built client with SPA fallback for /study/:id and /admin/*, JSON 404 for unknown API routes', async () => {
    const clientDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-client-'));
    fs.writeFileSync(path.join(clientDir, 'index.html'), '<!doctype html><title>Tandem test</title>');
    fs.writeFileSync(path.join(clientDir, 'app.js'), 'console.log(1)');
    try {
      const t = await server({ clientDir });
      for (const p of ['/', '/study/visualization', '/admin', '/admin/studies/visualization']) {
        const res = await fetch(t.server.url + p);
        expect(res.status, p).toBe(200);
        expect(await res.text()).toContain('Tandem test');
      }
      expect(await (await fetch(`${t.server.url}/app.js`)).text()).toBe('console.log(1)');
      const api = await fetch(`${t.server.url}/api/nope`);
      expect(api.status).toBe(404);
      expect(await api.json()).toMatchObject({ ok: false, error: { code: 'not_found' } });
      const headers = (await fetch(`${t.server.url}/`)).headers;
      expect(headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(headers.get('x-powered-by')).toBeNull();
    } finally {
      fs.rmSync(clientDir, { recursive: true, force: true });
    }
  });
});

describe('reload during a streaming reply', () => {
  it('the new connection gets the text so far and the rest of the stream', async () => {
    const fake = await startFakeOpenAI({ tokensPerSecond: 0 });
    try {
      const t = await server({ openai: { baseURL: fake.url, apiKey: 'k' } });
      // ~80 tokens at 30 tokens/s: the stream outlives the reconnect even on a loaded machine.
      const full = Array.from({ length: 80 }, (_, i) => `w${i}`).join(' ');
      fake.script(reply(full, { tokensPerSecond: 30 }));
      const j = await join(t, 'travel-planning', { PROLIFIC_PID: 'reload-1' });
      const first = await connectSocket(t, j.token);
      await toWorkspace(first);
      const firstDelta = nextPush(first, 'chat:delta');
      const ack = await callOk(first, 'chat:send', { clientId: 'reload-msg-1', text: 'Count please', clientTs: Date.now() });
      await firstDelta;
      first.disconnect();

      const second = await connectSocket(t, j.token);
      const seen: string[] = [];
      second.on('chat:delta', (d) => seen.push(d.text));
      const done = nextPush(second, 'chat:done');
      const state = await callOk(second, 'session:state', {});
      expect(state.replyInFlight).toMatchObject({ replyId: ack.replyId });
      const { message } = await done;
      expect(message.text).toBe(full);
      // Snapshot text + later deltas reconstruct the reply (deltas may also have arrived before the snapshot).
      expect(full.startsWith(state.replyInFlight!.text)).toBe(true);
      expect(full.endsWith(seen.join('').slice(-5))).toBe(true);
    } finally {
      await fake.close();
    }
  });
});

describe('server restart during a reply', () => {
  it('stores the cut reply as failed and the participant can retry after the restart', async () => {
    const fake = await startFakeOpenAI({ tokensPerSecond: 0 });
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-restart-'));
    const options = { dataDir, port: 0, host: '127.0.0.1', openai: { baseURL: fake.url, apiKey: 'k' }, logger: createLogger('silent') };
    try {
      const first = await startTandem(options);
      const t1: TestServer = { server: first, dataDir, sockets: [], close: () => first.close() };
      fake.script(reply('a b c d e f g h i j k l m n o p q r s t u v w x y z', { tokensPerSecond: 20 }));
      const j = await join(t1, 'travel-planning', { PROLIFIC_PID: 'restart-1' });
      const socket = await connectSocket(t1, j.token);
      await toWorkspace(socket);
      const firstDelta = nextPush(socket, 'chat:delta');
      const ack = await callOk(socket, 'chat:send', { clientId: 'restart-msg-1', text: 'Plan it', clientTs: Date.now() });
      await firstDelta;
      socket.disconnect();
      await first.close();

      fake.script(reply('A complete plan.'));
      const second = await startTandem(options);
      const t2: TestServer = { server: second, dataDir, sockets: [], close: () => second.close() };
      try {
        const again = await connectSocket(t2, j.token);
        const state = await callOk(again, 'session:state', {});
        expect(state.step).toBe('workspace');
        expect(state.messages.find((m) => m.id === ack.replyId)).toMatchObject({ status: 'interrupted' });
        expect(state.canRetry).toBe(true);
        const done = nextPush(again, 'chat:done');
        await callOk(again, 'chat:retry', { clientTs: Date.now() });
        expect((await done).message.text).toBe('A complete plan.');
        again.disconnect();
      } finally {
        await second.close();
      }
    } finally {
      await fake.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('crash recovery at start-up', () => {
  it('stores a reply cut by a crash as interrupted, with its event, and the participant can retry', async () => {
    const fake = await startFakeOpenAI({ tokensPerSecond: 0 });
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-crash-'));
    const options = { dataDir, port: 0, host: '127.0.0.1', openai: { baseURL: fake.url, apiKey: 'k' }, logger: createLogger('silent') };
    try {
      const first = await startTandem(options);
      const t1: TestServer = { server: first, dataDir, sockets: [], close: () => first.close() };
      fake.script(reply('x '.repeat(200), { tokensPerSecond: 20 }));
      const j = await join(t1, 'travel-planning', { PROLIFIC_PID: 'crash-1' });
      const socket = await connectSocket(t1, j.token);
      await toWorkspace(socket);
      const firstDelta = nextPush(socket, 'chat:delta');
      const ack = await callOk(socket, 'chat:send', { clientId: 'crash-msg-01', text: 'Go', clientTs: Date.now() });
      await firstDelta;
      // "Crash": the database connection disappears before the reply can be stored.
      await first.store.close();
      socket.disconnect();
      await first.close();

      fake.script(reply('Recovered answer.'));
      const second = await startTandem(options);
      try {
        const cut = (await second.store.messages.get(ack.replyId!));
        expect(cut).toMatchObject({ status: 'interrupted', interrupted: true, text: '', replyTo: ack.message.id, requestedModel: 'gpt-4o-mini' });
        const events = (await second.store.events.listForSession(j.sessionId));
        expect(events.at(-1)).toMatchObject({ type: 'reply.finished', payload: { replyId: ack.replyId, status: 'interrupted', recovered: true } });
        expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
        const t2: TestServer = { server: second, dataDir, sockets: [], close: () => second.close() };
        const again = await connectSocket(t2, j.token);
        const state = await callOk(again, 'session:state', {});
        expect(state.canRetry).toBe(true);
        const done = nextPush(again, 'chat:done');
        await callOk(again, 'chat:retry', { clientTs: Date.now() });
        expect((await done).message.text).toBe('Recovered answer.');
        again.disconnect();
      } finally {
        await second.close();
      }
      // A third start finds nothing left to recover.
      const third = await startTandem(options);
      expect((await third.store.messages.listForSession(j.sessionId)).filter((m) => m.status === 'interrupted')).toHaveLength(1);
      await third.close();
    } finally {
      await fake.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
