/**
 * On PostgreSQL what a participant waits for runs on `store.interactive`, a pool of its own
 * (server/services/participants.ts, docs/storage.md "PostgreSQL specifics"): with every connection of the main
 * pool held by an open transaction, as background writes hold it under load, a participant still gets through
 * the session's steps (and a Stop). Before the steps moved, each of them queued for a main-pool connection and, after the
 * pool's 10 s, answered `unavailable`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callOk, connectSocket, eventually, join, startTestServer, type TestServer } from '../support/integrationHarness';
import { artifactValues, surveyAnswers } from '../../research/simulation/participantInputs';
import { STORE_ENGINES } from '../support/testStores';

const MAIN_POOL = 2;

describe.skipIf(!STORE_ENGINES.includes('postgres'))("a session's steps while the main pool is busy (postgres)", () => {
  let t: TestServer;
  let savedPoolMax: string | undefined;

  beforeAll(async () => {
    // Read when the store opens its main pool (lib/storage/postgres/connection.ts); restored for the next file.
    savedPoolMax = process.env.PGPOOL_MAX;
    process.env.PGPOOL_MAX = String(MAIN_POOL);
    t = await startTestServer({ engine: 'postgres' });
  });
  afterAll(async () => {
    await t?.close();
    if (savedPoolMax === undefined) delete process.env.PGPOOL_MAX;
    else process.env.PGPOOL_MAX = savedPoolMax;
  });

  it('answers session:state, consent, the instructions, a Stop, a draft, the submission and the survey, each stored once', async () => {
    const joined = await join(t, 'travel-planning', { PROLIFIC_PID: `busy-pool-${Date.now()}` });
    const socket = await connectSocket(t, joined.token);
    // The connection mark is written at connect: let it land before the pool fills, so what follows is the steps alone.
    await eventually('connection.opened stored', async () => (await t.server.store.events.listForSession(joined.sessionId)).length > 0);

    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = 0;
    const holders = Array.from({ length: MAIN_POOL }, () =>
      t.server.store.transaction(async (tx) => {
        await tx.sessions.count();
        holding += 1;
        await held;
      }),
    );
    await eventually('every main-pool connection held', () => holding === MAIN_POOL);
    // A statement on the main pool now waits; the steps below must not.
    let mainDone = false;
    const queued = t.server.store.sessions.count().then(() => (mainDone = true));
    try {
      let state = await callOk(socket, 'session:state', {});
      state = await callOk(socket, 'consent:respond', { accept: true, version: state.consent.version, clientTs: Date.now() });
      expect(state.step).toBe('instructions');
      state = await callOk(socket, 'step:advance', { from: 'instructions', clientTs: Date.now() });
      expect(state.step).toBe('workspace');
      // A Stop with no reply running asks the session's lease (a reply on another node would be stopped through it).
      expect(await callOk(socket, 'chat:stop', { clientTs: Date.now() })).toEqual({ stopped: false });
      const fields = artifactValues(state, {}, 1);
      const draft = await callOk(socket, 'artifact:draft', { fields, clientTs: Date.now() });
      expect(draft.version).toBe(1);
      state = await callOk(socket, 'artifact:submit', { fields, clientTs: Date.now() });
      expect(state.step).toBe('survey');
      state = await callOk(socket, 'survey:submit', { answers: surveyAnswers(state, () => 0.5), clientTs: Date.now() });
      expect(state).toMatchObject({ step: 'complete', status: 'completed' });
      expect(state.completion?.outcome).toBe('completed');
      // Still queued: every answer above came past the busy main pool.
      expect(mainDone).toBe(false);
    } finally {
      release();
      await Promise.all([...holders, queued]);
    }

    const types = (await t.server.store.events.listForSession(joined.sessionId)).map((e) => e.type);
    for (const type of ['consent.accepted', 'artifact.submitted', 'survey.submitted'])
      expect(types.filter((x) => x === type), type).toHaveLength(1);
    expect(types.indexOf('consent.accepted')).toBeLessThan(types.indexOf('artifact.submitted'));
    expect(types.indexOf('artifact.submitted')).toBeLessThan(types.indexOf('survey.submitted'));
  });
});
