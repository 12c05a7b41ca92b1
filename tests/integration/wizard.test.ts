/**
 * Researcher-in-the-loop replies end to end: a real server and store (both engines), real socket.io participant
 * and console clients, researchers over real HTTP with login cookies and CSRF, and the real `openai` client
 * streaming drafts from a local OpenAI-compatible server.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAI, type FakeOpenAI } from '../support/fakeOpenAI';
import { STORE_ENGINES } from '../support/testStores';
import { callOk, joinToWorkspace, nextPush, startTestServer, type TestServer } from '../support/integrationHarness';
import { loginAdmin, TEST_ADMIN_PASSWORD, type AdminClient } from '../support/adminTestServer';
import { exportStudy } from '../../research/exports/exportStudy';
import { REPO_ROOT, until, watchConsole, wizardStudiesDir } from '../support/wizardTestSupport';

const MODEL = 'gpt-4o-mini-2024-07-18';
const DRAFT = 'Lisbon is lovely in spring. Stay in Alfama.';

describe.each(STORE_ENGINES)('wizard-of-oz replies (%s)', (engine) => {
  let fake: FakeOpenAI;
  let t: TestServer;
  let alice: AdminClient;
  let bob: AdminClient;
  let n = 0;

  beforeAll(async () => {
    process.env.ADMIN_PASSWORD = TEST_ADMIN_PASSWORD;
    fake = await startFakeOpenAI({ model: MODEL, tokensPerSecond: 0 });
    t = await startTestServer({
      engine,
      studiesDir: wizardStudiesDir({ review: { timeout_seconds: 60 }, wizard: { show_model_draft: false } }),
      surveysDir: path.join(REPO_ROOT, 'surveys'),
      openai: { baseURL: fake.url, apiKey: 'test-key', backoffBaseMs: 5, backoffMaxMs: 20, timeoutMs: 5_000 },
    });
    alice = await loginAdmin(t.server.url);
    bob = await loginAdmin(t.server.url);
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  const json = async (res: Promise<Response>) => {
    const r = await res;
    return { status: r.status, body: (await r.json()) as any };
  };

  /** A participant of the study who sent one message; resolves once the review is in the store. */
  async function participantWaiting(studyId: string) {
    const p = await joinToWorkspace(t, studyId, { PROLIFIC_PID: `woz-${engine}-${++n}` });
    const deltas: string[] = [];
    p.socket.on('chat:delta', (d) => deltas.push(d.text));
    const ack = await callOk(p.socket, 'chat:send', { clientId: `client-${engine}-${n}`, text: 'Where should we go for three days?', clientTs: Date.now() });
    const replyId = ack.replyId!;
    await until('the review', () => t.server.store.reviews.get(replyId));
    return { ...p, replyId, deltas };
  }

  it('review: the draft streams to the console only; one researcher claims it, edits it, and the participant gets the edit once', async () => {
    fake.script(reply(DRAFT, { chunks: 4, tokensPerSecond: 400 }));
    const console = await watchConsole(t.server.url, alice.cookie, 'woz-review');
    const p = await participantWaiting('woz-review');
    await until('the stored draft', async () => (await t.server.store.reviews.get(p.replyId))?.draftText ?? undefined);
    await until('the draft pushed', () => console.drafts.find((d) => d.replyId === p.replyId && d.done));
    expect(console.drafts.filter((d) => d.replyId === p.replyId && !d.done).map((d) => d.text).join('')).toBe(DRAFT);
    expect(p.deltas).toEqual([]); // the participant saw nothing of the draft

    const queue = await json(alice.get('/api/admin/wizard/studies/woz-review/queue'));
    expect(queue.body.data.items).toEqual([expect.objectContaining({ replyId: p.replyId, sessionId: p.sessionId, mode: 'review', state: 'waiting', claimed: null, draftDone: true })]);
    const detail = await json(alice.get(`/api/admin/wizard/reviews/${p.replyId}`));
    expect(detail.body.data).toMatchObject({ draft: DRAFT, draftVisible: true, transcript: [{ role: 'user', text: 'Where should we go for three days?' }] });
    expect(detail.body.data.cannedReplies).toHaveLength(2);

    // CSRF and login guard the actions.
    expect((await fetch(`${t.server.url}/api/admin/wizard/reviews/${p.replyId}/claim`, { method: 'POST' })).status).toBe(401);
    expect((await alice.post(`/api/admin/wizard/reviews/${p.replyId}/claim`, {}, { 'x-csrf-token': 'wrong' })).status).toBe(403);

    expect((await alice.post(`/api/admin/wizard/reviews/${p.replyId}/claim`)).status).toBe(200);
    const bobsClaim = await json(bob.post(`/api/admin/wizard/reviews/${p.replyId}/claim`));
    expect(bobsClaim.status).toBe(409);
    expect(bobsClaim.body.error.message).toMatch(/another researcher/);
    expect((await json(bob.get('/api/admin/wizard/studies/woz-review/queue'))).body.data.items[0]).toMatchObject({ state: 'claimed', claimed: 'other' });
    expect((await bob.post(`/api/admin/wizard/reviews/${p.replyId}/send`, { action: 'replace', text: 'Mine!' })).status).toBe(409);

    const edited = 'Lisbon is lovely in spring. Stay in Alfama or Baixa.';
    const done = nextPush(p.socket, 'chat:done');
    const sent = await json(alice.post(`/api/admin/wizard/reviews/${p.replyId}/send`, { action: 'edit', text: edited }));
    // Levenshtein distance checked outside the product (textbook DP):
    // python3 -c "def lev(a,b):
    //   p=list(range(len(b)+1))
    //   for i,ca in enumerate(a,1):
    //     c=[i]
    //     for j,cb in enumerate(b,1): c.append(min(p[j]+1,c[j-1]+1,p[j-1]+(ca!=cb)))
    //     p=c
    //   return p[-1]
    // print(lev('Lisbon is lovely in spring. Stay in Alfama.','Lisbon is lovely in spring. Stay in Alfama or Baixa.'))"  → 9
    expect(sent.body.data).toEqual({ messageId: p.replyId, origin: 'model_edited', editDistance: 9 });
    // Acknowledged after COMMIT: the message is readable the moment the researcher has the answer.
    const stored = await t.server.store.messages.get(p.replyId);
    expect(stored).toMatchObject({ role: 'assistant', status: 'complete', text: edited, model: MODEL, usage: expect.objectContaining({ completionTokens: expect.any(Number) }) });
    expect((await done).message).toMatchObject({ id: p.replyId, text: edited });

    // Exactly once: sending again changes nothing.
    expect((await alice.post(`/api/admin/wizard/reviews/${p.replyId}/send`, { action: 'approve' })).status).toBe(409);
    expect((await t.server.store.messages.listForSession(p.sessionId)).map((m) => m.role)).toEqual(['user', 'assistant']);
    const review = await t.server.store.reviews.get(p.replyId);
    expect(review).toMatchObject({ state: 'sent', origin: 'model_edited', draftText: DRAFT, finalText: edited, editDistance: 9 });
    expect(review!.claimedBy).toMatch(/^researcher#[0-9a-f]{8}$/);
    expect(review!.diff).toContain('+Lisbon is lovely in spring. Stay in Alfama or Baixa.');
    expect(review!.waitMs).toBeGreaterThan(0);
    // The researcher is in the review row and the audit log, not in the trajectory.
    const events = await t.server.store.events.listForSession(p.sessionId);
    expect(JSON.stringify(events)).not.toContain(review!.claimedBy!);
    const finished = events.find((e) => e.type === 'reply.finished')!.payload as any;
    expect(finished.review).toMatchObject({ mode: 'review', state: 'sent', origin: 'model_edited', modelDraft: DRAFT, editDistance: 9 });
    const audit = await t.server.store.audit.list({ studyId: 'woz-review' });
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(['wizard_claim', 'wizard_send']));
    expect(audit.find((a) => a.action === 'wizard_send')!.details).toMatchObject({ researcher: review!.claimedBy, origin: 'model_edited' });
    console.close();
  });

  it('review: approving sends the draft unchanged (origin model); replacing it is origin wizard', async () => {
    fake.script(reply(DRAFT), reply(DRAFT));
    const a = await participantWaiting('woz-review');
    await until('draft a', async () => (await t.server.store.reviews.get(a.replyId))?.draftText ?? undefined);
    const approved = await json(bob.post(`/api/admin/wizard/reviews/${a.replyId}/send`, { action: 'approve' }));
    expect(approved.body.data).toEqual({ messageId: a.replyId, origin: 'model', editDistance: 0 });
    expect((await t.server.store.messages.get(a.replyId))?.text).toBe(DRAFT);

    const b = await participantWaiting('woz-review');
    await until('draft b', async () => (await t.server.store.reviews.get(b.replyId))?.draftText ?? undefined);
    const done = nextPush(b.socket, 'chat:done');
    const replaced = await json(bob.post(`/api/admin/wizard/reviews/${b.replyId}/send`, { action: 'replace', text: 'Which city?' }));
    expect(replaced.body.data.origin).toBe('wizard');
    expect((await done).message.text).toBe('Which city?');
  });

  it('wizard without show_model_draft: the console never sees the suggestion; a canned reply is sent as the researcher wrote it', async () => {
    fake.script(reply('A SECRET SUGGESTION'));
    const console = await watchConsole(t.server.url, alice.cookie, 'woz-wizard');
    const p = await participantWaiting('woz-wizard');
    await until('the stored suggestion', async () => (await t.server.store.reviews.get(p.replyId))?.draftText ?? undefined);
    const detail = await json(alice.get(`/api/admin/wizard/reviews/${p.replyId}`));
    expect(detail.body.data).toMatchObject({ draft: null, draftVisible: false, item: { mode: 'wizard' } });
    expect(JSON.stringify(detail.body)).not.toContain('SECRET');
    expect(console.drafts).toEqual([]);
    expect((await alice.post(`/api/admin/wizard/reviews/${p.replyId}/send`, { action: 'approve' })).status).toBe(400);
    const canned = detail.body.data.cannedReplies[0] as string;
    const done = nextPush(p.socket, 'chat:done');
    const sent = await json(alice.post(`/api/admin/wizard/reviews/${p.replyId}/send`, { action: 'replace', text: canned }));
    expect(sent.body.data.origin).toBe('wizard');
    expect((await done).message.text).toBe(canned);
    expect(await t.server.store.reviews.get(p.replyId)).toMatchObject({ state: 'sent', origin: 'wizard', draftText: 'A SECRET SUGGESTION', finalText: canned });
    console.close();
  });

  it('discarding ends the turn without a reply (like Stop), and the participant may write again', async () => {
    fake.script(reply(DRAFT), reply('Second draft.'));
    const p = await participantWaiting('woz-review');
    const done = nextPush(p.socket, 'chat:done');
    expect((await alice.post(`/api/admin/wizard/reviews/${p.replyId}/discard`)).status).toBe(200);
    expect((await done).message).toMatchObject({ id: p.replyId, status: 'stopped', text: '' });
    expect((await t.server.store.reviews.get(p.replyId))?.state).toBe('discarded');
    const again = await callOk(p.socket, 'chat:send', { clientId: `client-again-${engine}`, text: 'Hello?', clientTs: Date.now() });
    await until('the second review', () => t.server.store.reviews.get(again.replyId!));
    await alice.post(`/api/admin/wizard/reviews/${again.replyId}/discard`);
  });

  it("the participant's Stop ends a waiting reply; a reply sent before the model finished keeps what it had drafted", async () => {
    fake.script(reply(DRAFT), reply('word '.repeat(200), { tokensPerSecond: 20 }));
    const stopped = await participantWaiting('woz-review');
    await until('draft', async () => (await t.server.store.reviews.get(stopped.replyId))?.draftText ?? undefined);
    const done = nextPush(stopped.socket, 'chat:done');
    expect(await callOk(stopped.socket, 'chat:stop', { replyId: stopped.replyId, clientTs: Date.now() })).toEqual({ stopped: true });
    expect((await done).message).toMatchObject({ id: stopped.replyId, status: 'stopped', text: '' });
    expect((await t.server.store.reviews.get(stopped.replyId))?.state).toBe('discarded');
    // The researcher is too late: nothing more is stored.
    expect((await alice.post(`/api/admin/wizard/reviews/${stopped.replyId}/send`, { action: 'replace', text: 'Late' })).status).toBe(409);

    const early = await participantWaiting('woz-wizard');
    await new Promise((r) => setTimeout(r, 300)); // a few words of the suggestion (20 tokens/s) have streamed
    const sent = await json(alice.post(`/api/admin/wizard/reviews/${early.replyId}/send`, { action: 'replace', text: 'Hi! Which city?' }));
    expect(sent.status).toBe(200);
    const review = (await t.server.store.reviews.get(early.replyId))!;
    expect(review.draftText!.length).toBeGreaterThan(0);
    expect(review.draftText!.length).toBeLessThan('word '.repeat(200).length);
    expect('word '.repeat(200).startsWith(review.draftText!)).toBe(true);
    expect(review.draftMeta?.finishReason).toBe('aborted');
    expect(review.editDistance).toBeGreaterThan(0);
  });

  it('exports the provenance fields in messages.jsonl and the codebook, never the researcher', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-woz-export-'));
    await exportStudy({ store: t.server.store, dataDir: t.dataDir, studyId: 'woz-review', outDir: out, includePilot: false, includeIdentities: false });
    const rows = fs
      .readFileSync(path.join(out, 'messages.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const assistants = rows.filter((r) => r.role === 'assistant');
    expect(assistants.map((r) => r.origin)).toEqual(expect.arrayContaining(['model_edited', 'model', 'wizard', null]));
    const edited = assistants.find((r) => r.origin === 'model_edited')!;
    expect(edited).toMatchObject({ assistant_mode: 'review', model_draft: DRAFT, edit_distance: 9, text: 'Lisbon is lovely in spring. Stay in Alfama or Baixa.' });
    expect(edited.draft_diff).toContain('--- model draft');
    expect(edited.wait_ms).toEqual(expect.any(Number));
    const user = rows.find((r) => r.role === 'user')!;
    expect(user).toMatchObject({ origin: null, model_draft: null, edit_distance: null, wait_ms: null });
    // Column order: the original contract first, the provenance appended.
    expect(Object.keys(edited).slice(0, 12)).toEqual(['session_id', 'seq', 'role', 'text', 'created_at', 'tokens', 'model', 'ttft_ms', 'duration_ms', 'finish_reason', 'interrupted', 'status']);
    for (const file of fs.readdirSync(out, { recursive: true }) as string[]) {
      const full = path.join(out, file);
      if (fs.statSync(full).isFile()) expect(fs.readFileSync(full, 'utf8'), file).not.toMatch(/researcher#[0-9a-f]{8}/);
    }
    const codebook = fs.readFileSync(path.join(out, 'codebook.md'), 'utf8');
    for (const column of ['origin', 'model_draft', 'edit_distance', 'draft_diff', 'wait_ms']) expect(codebook).toContain(column);
    fs.rmSync(out, { recursive: true, force: true });
  });
});

describe('wizard-of-oz timeout fallback', () => {
  let fake: FakeOpenAI;
  let t: TestServer;

  beforeAll(async () => {
    process.env.ADMIN_PASSWORD = TEST_ADMIN_PASSWORD;
    fake = await startFakeOpenAI({ model: MODEL, tokensPerSecond: 0 });
    t = await startTestServer({
      studiesDir: wizardStudiesDir({ review: { timeout_seconds: 5 }, wizard: { timeout_seconds: 5 } }),
      surveysDir: path.join(REPO_ROOT, 'surveys'),
      openai: { baseURL: fake.url, apiKey: 'test-key', backoffBaseMs: 5, backoffMaxMs: 20, timeoutMs: 5_000 },
    });
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('sends the draft (review) and the holding message (wizard) when nobody answers in time, recorded as fallback', async () => {
    fake.script(reply(DRAFT), reply('Unused suggestion.'));
    const r = await joinToWorkspace(t, 'woz-review', { PROLIFIC_PID: 'timeout-r' });
    const w = await joinToWorkspace(t, 'woz-wizard', { PROLIFIC_PID: 'timeout-w' });
    const rDone = nextPush(r.socket, 'chat:done', () => true, 15_000);
    const wDone = nextPush(w.socket, 'chat:done', () => true, 15_000);
    const started = Date.now();
    const rAck = await callOk(r.socket, 'chat:send', { clientId: 'client-r1', text: 'Hello?', clientTs: Date.now() });
    const wAck = await callOk(w.socket, 'chat:send', { clientId: 'client-w1', text: 'Hello?', clientTs: Date.now() });
    expect((await rDone).message.text).toBe(DRAFT);
    const holding = t.server.config.studies.get('woz-wizard')!.conditions[0]!.assistant!.fallback.holding_message;
    expect((await wDone).message.text).toBe(holding);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
    expect(await t.server.store.reviews.get(rAck.replyId!)).toMatchObject({ state: 'fallback', origin: 'fallback', editDistance: 0, claimedBy: null });
    expect(await t.server.store.reviews.get(wAck.replyId!)).toMatchObject({ state: 'fallback', origin: 'fallback', finalText: holding, draftText: 'Unused suggestion.' });
  }, 20_000);
});
