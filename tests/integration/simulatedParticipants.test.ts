/**
 * LLM-played people in a group study (npm run simulate --agent-participants), on both engines: the model at an
 * OpenAI-compatible base URL (tests/support/fakeOpenAI.ts) writes every person's room messages, the sessions are
 * recorded as simulated because the study is in pilot, the export keeps them with `simulated` = true and each
 * member's `group_edits`, and the analysis leaves them out unless --include-simulated. In a live study the same link
 * parameter flags nothing: a participant cannot take themselves out of the analysis.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGroupSimulation } from '../../research/simulation/groupSimulation';
import { participantWriter, scriptedLine } from '../../research/simulation/agentParticipants';
import { exportStudy } from '../../research/exports/exportStudy';
import { runAnalysis } from '../../research/analysis/runAnalysis';
import { DEFAULT_OPTIONS, type Summary } from '../../research/analysis/summary';
import { SIMULATED_PARAM } from '../../common/simulatedParticipant';
import { groupStudyDirs } from '../support/groupTestStudies';
import { startTestServer, type TestServer } from '../support/integrationHarness';
import { STORE_ENGINES } from '../support/testStores';
import { httpError, reply, startFakeOpenAI, type FakeOpenAI } from '../support/fakeOpenAI';

const csv = (file: string) => parse(readFileSync(file, 'utf8'), { columns: true }) as Record<string, string>[];
const jsonl = (file: string) => readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describe.each(STORE_ENGINES)('agent participants (%s)', (engine) => {
  let t: TestServer;
  let fake: FakeOpenAI;
  const dirs = groupStudyDirs();
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    t = await startTestServer({ engine, studiesDir: dirs.studiesDir, surveysDir: dirs.surveysDir, joinRateLimitPerMinute: 10_000, initialStudyStatus: 'pilot' });
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
    dirs.cleanup();
  });

  it('lets the model play the people, flags their sessions simulated, and the analysis leaves them out unless asked', async () => {
    let n = 0;
    fake.setResponder(() => reply(`Persona line ${++n}: let us book the lake venue.`));
    // one failing call: that person posts the scripted line instead, and the room goes on
    fake.script(httpError(400, { message: 'bad request' }));
    const writer = participantWriter('persona-model', { baseUrl: fake.url, env: {} });
    const s = await runGroupSimulation({ url: t.server.url, study: 'group-room', participants: 3, runId: `ap${engine}`, turns: 2, dropout: 0, seed: 4, thinkMs: 0, timeoutMs: 20_000, writer });
    expect(s.errors).toEqual([]);
    expect([s.grouped, s.groups, s.completed, s.messagesSent, s.deliveriesLost]).toEqual([3, 1, 3, 6, 0]);
    expect(s.writer).toBe(`${writer.label}`);
    expect(s.writerFailures).toBe(1);
    // the model saw the task and the room as that person
    const bodies = fake.requests.map((r) => r.body as { model: string; messages: { role: string; content: string }[] });
    expect(bodies).toHaveLength(6);
    expect(bodies.every((b) => b.model === 'persona-model')).toBe(true);
    expect(bodies[0]!.messages[0]!.content).toContain('A one-day team offsite');
    expect(bodies.at(-1)!.messages.some((m) => m.role === 'user' && /^Member \d: Persona line/.test(m.content))).toBe(true);

    const out = join(t.dataDir, 'export');
    await exportStudy({ store: t.server.store, dataDir: t.dataDir, studyId: 'group-room', outDir: out, includePilot: true, includeIdentities: false });
    const sessions = csv(join(out, 'sessions.csv'));
    expect(sessions).toHaveLength(3);
    expect(sessions.map((r) => r.simulated)).toEqual(['true', 'true', 'true']);
    expect(sessions.every((r) => Number(r.group_edits) === 2)).toBe(true);
    const room = jsonl(join(out, 'messages.jsonl')).filter((m) => m.group_id && m.sender_kind === 'participant');
    expect(room.map((m) => m.text).filter((text) => String(text).startsWith('Persona line')).sort()).toEqual(Array.from({ length: 5 }, (_, i) => `Persona line ${i + 1}: let us book the lake venue.`).sort());
    expect(room.filter((m) => /^Simulated idea \d from person \d\.$/.test(String(m.text)))).toHaveLength(1);

    const analyse = async (includeSimulated: boolean) => {
      const dir = join(t.dataDir, `analysis-${includeSimulated}`);
      await runAnalysis(out, dir, { ...DEFAULT_OPTIONS, bootstrapReplicates: 0, includePilot: true, includeSimulated });
      return JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
    };
    const without = await analyse(false);
    expect(without.n_simulated_excluded).toBe(3);
    expect(without.groups).toBeUndefined();
    const withSimulated = await analyse(true);
    expect(withSimulated.n_simulated_excluded).toBe(0);
    expect(withSimulated.groups!.n_groups).toBe(1);
    const group = Object.values(withSimulated.groups!.groups)[0]!;
    expect(group.people_turns).toBe(6);
    expect(Object.values(group.members).map((m) => m.edit_share)).toEqual([1 / 3, 1 / 3, 1 / 3]);
  });

  it('ignores the simulated parameter in a live study', async () => {
    await t.server.store.studies.setStatus('group-release', 'live', Date.now());
    const res = await fetch(`${t.server.url}/api/join`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ studyId: 'group-release', params: { participant_label: `self-flag-${engine}`, [SIMULATED_PARAM]: '1' } }),
    });
    const body = (await res.json()) as { ok: boolean; data: { sessionId: string } };
    expect(body.ok).toBe(true);
    const snapshot = await t.server.store.openExportSnapshot();
    try {
      expect(await snapshot.simulatedSessions('group-release')).toEqual(new Set());
      expect((await snapshot.simulatedSessions('group-room')).size).toBe(3);
    } finally {
      await snapshot.close();
    }
  });

  it('plays the people with the offline demo model when no endpoint is named', async () => {
    const writer = participantWriter('offline', { env: {} });
    expect(writer.label).toBe('offline/tandem-offline-demo-1');
    const turn = await writer.write({ personIndex: 0, turn: 0, selfName: 'Member 1', task: { title: 'Plan', instructions: 'Plan a day.' }, history: [] });
    expect(turn.failed).toBe(false);
    expect(turn.text.length).toBeGreaterThan(0);
    expect(turn.text).not.toBe(scriptedLine({ personIndex: 0, turn: 0 }));
    expect(() => participantWriter('gpt-4o-mini', { env: {} })).toThrow(/OPENAI_API_KEY/);
  });
});
