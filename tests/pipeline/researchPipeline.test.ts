/**
 * The research pipeline end to end, the way a researcher runs it, checking that the parts agree:
 *
 *   participant server (real socket.io sessions, real SQLite)  →  `judge --study` (the real openai
 *   client against the local fake OpenAI server, scripted judge replies)  →  `annotate --study`
 *   (offline demo annotator)  →  `export`  →  `analyze`  →  `agreement`.
 *
 * Every command runs as a child process through tsx, as the npm scripts do. Expected values are
 * computed here independently: token counts from the unredacted database text with o200k_base, Q as
 * the median of the scores the fake judge was told to give, z and Pz from sessions.csv.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from '../../common/tokens';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fakeOpenAI';
import { csvHeader, listFiles, median, readCsv, readJsonl, writeCsv, zScores, type CsvRow } from './datasetFiles';
import { PERSONAL_FILE_NAME } from './participants';
import { cliEnv, runCli, runCliOk } from './runCli';
import { EMAIL, runStudy, scriptedJudge, type Participant } from './studyRun';

const LIKERT_ITEMS = ['confidence', 'ai_usefulness', 'speed', 'satisfaction'] as const;

interface ExportedMessage {
  session_id: string;
  seq: number;
  role: 'user' | 'assistant';
  text: string;
  tokens: number;
}

let work: string;
let dataDir: string;
let fake: FakeOpenAI; // the judge model
const participants: Participant[] = [];
let declinerPid = '';
let declinerDbId = '';
let exportDir: string; // default export (pilot left out)
let pilotExportDir: string; // --include-pilot
/** pseudonymous session id → participant (null for the decliner) */
const byPseudonym = new Map<string, Participant | null>();
const outputs: Record<string, string> = {};

const dataEnv = () => cliEnv({ DATA_DIR: dataDir }); // no OPENAI_API_KEY: offline demo annotator
const judgeEnv = () => cliEnv({ DATA_DIR: dataDir, OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.url });

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-pipeline-'));
  const study = await runStudy();
  ({ dataDir, declinerPid, declinerDbId } = study);
  participants.push(...study.participants);

  // The judge: the real openai client against a local fake that gives each artifact its scripted scores.
  fake = await startFakeOpenAI({ responder: scriptedJudge(participants) });
  const judged = await runCliOk('judge', ['--study', 'visualization'], judgeEnv());
  outputs.judge = judged.stderr;
  outputs.annotate = (await runCliOk('annotate', ['--study', 'visualization'], dataEnv())).stderr;

  exportDir = path.join(work, 'dataset');
  pilotExportDir = path.join(work, 'dataset-with-pilot');
  outputs.export = (await runCliOk('export', ['--study', 'visualization', '--out', exportDir], dataEnv())).stdout;
  await runCliOk('export', ['--study', 'visualization', '--out', pilotExportDir, '--include-pilot'], dataEnv());

  for (const a of readJsonl<{ session_id: string; fields: Record<string, string> }>(path.join(pilotExportDir, 'artifacts.jsonl'))) {
    const m = /pipeline-participant-(\d\d)/.exec(a.fields.hypothesis ?? '');
    if (m) byPseudonym.set(a.session_id, participants[Number(m[1])]!);
  }
  for (const row of readCsv(path.join(pilotExportDir, 'sessions.csv'))) if (row.status === 'declined') byPseudonym.set(row.session_id!, null);
}, 120_000);

afterAll(async () => {
  await fake?.close();
  // TANDEM_KEEP_PIPELINE=1 keeps the database and every dataset for inspection.
  if (process.env.TANDEM_KEEP_PIPELINE) console.log(`pipeline files kept: ${work} ${dataDir}`);
  else {
    if (work) fs.rmSync(work, { recursive: true, force: true });
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

const participantOf = (pseudonym: string): Participant => {
  const p = byPseudonym.get(pseudonym);
  if (!p) throw new Error(`session ${pseudonym} is not a scripted participant`);
  return p;
};
const expectedQuality = (p: Participant) => median(p.judgeScores);
const live = () => participants.filter((p) => !p.pilot);

describe('export after judge and annotate', () => {
  it('has one row per session, pilot left out by default and included with --include-pilot', () => {
    const rows = readCsv(path.join(exportDir, 'sessions.csv'));
    expect(rows).toHaveLength(9); // 8 completed + 1 declined
    expect(rows.every((r) => r.is_pilot === 'false')).toBe(true);
    expect(rows.map((r) => r.status).sort()).toEqual([...Array(8).fill('completed'), 'declined'].sort());
    const withPilot = readCsv(path.join(pilotExportDir, 'sessions.csv'));
    expect(withPilot).toHaveLength(10);
    const pilotRows = withPilot.filter((r) => r.is_pilot === 'true');
    expect(pilotRows).toHaveLength(1);
    expect(participantOf(pilotRows[0]!.session_id!).pilot).toBe(true);
    // Pseudonyms are stable across exports.
    expect(new Set(withPilot.map((r) => r.session_id))).toEqual(new Set([...rows.map((r) => r.session_id), pilotRows[0]!.session_id]));
    const manifest = JSON.parse(fs.readFileSync(path.join(exportDir, 'manifest.json'), 'utf8'));
    expect(manifest.counts.excluded_pilot_sessions).toBe(1);
    expect(outputs.export).toMatch(/: 9 sessions, .*; 1 pilot sessions left out/);
    expect(manifest.filters.include_pilot).toBe(false);
  });

  it('sessions.csv token and turn counts equal the o200k counts of the stored (unredacted) messages and messages.jsonl', () => {
    const messages = readJsonl<ExportedMessage>(path.join(pilotExportDir, 'messages.jsonl'));
    for (const row of readCsv(path.join(pilotExportDir, 'sessions.csv'))) {
      const own = messages.filter((m) => m.session_id === row.session_id);
      const p = byPseudonym.get(row.session_id!);
      const fromJsonl = {
        user_tokens: own.filter((m) => m.role === 'user').reduce((n, m) => n + m.tokens, 0),
        agent_tokens: own.filter((m) => m.role === 'assistant').reduce((n, m) => n + m.tokens, 0),
        user_turns: own.filter((m) => m.role === 'user').length,
        agent_turns: own.filter((m) => m.role === 'assistant').length,
      };
      const fromCsv = { user_tokens: Number(row.user_tokens), agent_tokens: Number(row.agent_tokens), user_turns: Number(row.user_turns), agent_turns: Number(row.agent_turns) };
      expect(fromCsv, `session ${row.session_id}`).toEqual(fromJsonl);
      if (p === null) expect(fromCsv).toEqual({ user_tokens: 0, agent_tokens: 0, user_turns: 0, agent_turns: 0 });
      else
        expect(fromCsv, `participant ${p!.index}`).toEqual({ user_tokens: p!.rawUserTokens, agent_tokens: p!.rawAgentTokens, user_turns: p!.userTurns, agent_turns: p!.agentTurns });
      // seq is 1-based and gap-free within a session
      expect(own.map((m) => m.seq)).toEqual(own.map((_, i) => i + 1));
    }
    // Varied chat lengths: the participants do not all cost the same.
    expect(new Set(live().map((p) => p.rawUserTokens)).size).toBeGreaterThan(4);
    expect(new Set(live().map((p) => p.userTurns))).toEqual(new Set([1, 2, 3]));
  });

  it('redacts the email and platform id in messages.jsonl text; the tokens field keeps the count of the original text', () => {
    const messages = readJsonl<ExportedMessage>(path.join(exportDir, 'messages.jsonl'));
    const p0 = participants[0]!;
    const first = messages.find((m) => byPseudonym.get(m.session_id) === p0 && m.seq === 1)!;
    expect(first.text).not.toContain(EMAIL);
    expect(first.text).not.toContain(p0.pid);
    expect(first.text).toMatch(/\[REDACTED:[a-z_]+\]/);
    expect(first.tokens).toBe(countTokens(p0.messages[0]!));
    expect(countTokens(first.text)).not.toBe(first.tokens); // see the analyze test on recomputed costs
    const manifest = JSON.parse(fs.readFileSync(path.join(exportDir, 'manifest.json'), 'utf8'));
    expect(manifest.redactions.total).toBeGreaterThanOrEqual(2);
  });

  it('quality is the median of the judgements.csv samples, which are the scores the judge model gave; declined has none', () => {
    const judgements = readCsv(path.join(pilotExportDir, 'judgements.csv'));
    expect(outputs.judge).toMatch(/27\/27 samples, 27 new calls/);
    for (const row of readCsv(path.join(pilotExportDir, 'sessions.csv'))) {
      const p = byPseudonym.get(row.session_id!);
      const samples = judgements.filter((j) => j.session_id === row.session_id);
      if (p === null) {
        expect(row.quality, 'declined session').toBe('');
        expect(samples).toHaveLength(0);
        continue;
      }
      expect(samples.map((s) => Number(s.sample)).sort()).toEqual([0, 1, 2]);
      expect(samples.every((s) => s.parse_ok === 'true' && s.rubric_id === 'visualization-analysis')).toBe(true);
      const bySample = [...samples].sort((a, b) => Number(a.sample) - Number(b.sample)).map((s) => Number(s.score));
      expect(bySample, `participant ${p!.index}`).toEqual(p!.judgeScores);
      expect(Number(row.quality)).toBe(median(samples.map((s) => Number(s.score))));
      expect(Number(row.quality)).toBe(expectedQuality(p!));
    }
    expect(new Set(live().map(expectedQuality)).size).toBeGreaterThan(2);
  });

  /** Annotations keyed by session and turn, and the messages of sessions with / without an empty message. */
  function annotationFixture() {
    const messages = readJsonl<ExportedMessage & { status: string }>(path.join(exportDir, 'messages.jsonl'));
    const annotations = readCsv(path.join(exportDir, 'annotations.csv'));
    const bySessionTurn = new Map(annotations.map((a) => [`${a.session_id}#${a.turn}`, a] as const));
    const withEmpty = new Set(messages.filter((m) => m.text === '').map((m) => m.session_id));
    return { messages, annotations, bySessionTurn, withEmpty };
  }
  const expectAnnotated = (bySessionTurn: Map<string, CsvRow>, m: ExportedMessage) => {
    const a = bySessionTurn.get(`${m.session_id}#${m.seq - 1}`);
    expect(a, `annotation for ${m.session_id} message ${m.seq}`).toBeDefined();
    expect(a!.speaker, `speaker of ${m.session_id} message ${m.seq}`).toBe(m.role === 'user' ? 'user' : 'agent');
    expect(a!.friction).not.toBe('');
  };

  it('annotations.csv labels every message with text; its turn is the message position (seq − 1) with the matching speaker', () => {
    const { messages, annotations, bySessionTurn, withEmpty } = annotationFixture();
    expect(outputs.annotate).toMatch(/0 failed/);
    // The stopped reply of participant 3 is stored with empty text: nothing to label.
    expect(withEmpty.size).toBe(1);
    expect(annotations.length).toBe(messages.filter((m) => m.text !== '').length);
    for (const m of messages.filter((x) => !withEmpty.has(x.session_id))) expectAnnotated(bySessionTurn, m);
  });

  // Turns are message positions everywhere (messages.jsonl, annotate in both modes, agreement, migration
  // 011): an empty stopped reply keeps its position, so later labels stay on the right utterance.
  it('annotations.csv turns stay aligned with messages after an empty (stopped) reply', () => {
    const { messages, bySessionTurn, withEmpty } = annotationFixture();
    for (const m of messages.filter((x) => withEmpty.has(x.session_id) && x.text !== '')) expectAnnotated(bySessionTurn, m);
  });

  it('likert_<item> columns hold what each participant submitted; attention check passed', () => {
    const file = path.join(exportDir, 'sessions.csv');
    expect(csvHeader(file)).toEqual(expect.arrayContaining(LIKERT_ITEMS.map((i) => `likert_${i}`)));
    for (const row of readCsv(file)) {
      const p = byPseudonym.get(row.session_id!);
      for (const item of LIKERT_ITEMS) expect(row[`likert_${item}`], `${item} of ${row.session_id}`).toBe(p ? String(p.answers[item]) : '');
      expect(row.attention_check_passed).toBe(p ? 'true' : '');
    }
  });

  it('no platform id, email or database session id appears in any exported file or file name', () => {
    const secrets = [...participants.map((p) => p.pid), declinerPid, EMAIL, 'pipeline-study', PERSONAL_FILE_NAME, ...participants.map((p) => p.dbSessionId), declinerDbId];
    for (const dir of [exportDir, pilotExportDir]) {
      for (const rel of listFiles(dir)) {
        const content = fs.readFileSync(path.join(dir, rel)).toString('latin1');
        for (const s of secrets) {
          expect(rel.includes(s), `${rel} names ${s}`).toBe(false);
          expect(content.includes(s), `${path.basename(dir)}/${rel} contains ${s}`).toBe(false);
        }
      }
      expect(fs.existsSync(path.join(dir, 'identities.csv'))).toBe(false);
    }
  });

  it('events.jsonl agrees with sessions.csv, messages.jsonl and artifacts.jsonl for every session', () => {
    const events = readJsonl<{ session_id: string; seq: number; type: string; server_ts: number; payload: any }>(path.join(exportDir, 'events.jsonl'));
    const messages = readJsonl<ExportedMessage>(path.join(exportDir, 'messages.jsonl'));
    const artifacts = readJsonl<{ session_id: string; version: number; submitted_at: string; fields: Record<string, string> }>(path.join(exportDir, 'artifacts.jsonl'));
    for (const row of readCsv(path.join(exportDir, 'sessions.csv'))) {
      const id = row.session_id!;
      const own = events.filter((e) => e.session_id === id);
      expect(own.map((e) => e.seq), `event seq of ${id}`).toEqual(own.map((_, i) => i + 1));
      const of = (type: string) => own.filter((e) => e.type === type);
      expect(of('session.created')[0]!.payload).toMatchObject({ taskId: row.task, conditionId: row.condition, isPilot: false });
      expect(of('session.completed')[0]!.payload.outcome).toBe(row.status);
      // Chat: one message.user per participant message, one reply.finished per assistant message, same tokens, same order.
      const userMessages = messages.filter((m) => m.session_id === id && m.role === 'user');
      const replies = messages.filter((m) => m.session_id === id && m.role === 'assistant');
      expect(of('message.user').map((e) => [e.payload.text, e.payload.tokens])).toEqual(userMessages.map((m) => [m.text, m.tokens]));
      expect(of('reply.finished').map((e) => [e.payload.text, e.payload.tokens])).toEqual(replies.map((m) => [m.text, m.tokens]));
      expect(Number(row.user_turns)).toBe(of('message.user').length);
      expect(Number(row.agent_turns)).toBe(of('reply.finished').length);
      // Artifact: the submitted event holds the same fields and time as artifacts.jsonl and sessions.csv.
      const submitted = of('artifact.submitted');
      const versions = artifacts.filter((a) => a.session_id === id);
      expect(submitted.map((e) => [e.payload.version, e.payload.fields])).toEqual(versions.map((a) => [a.version, a.fields]));
      expect(submitted.map((e) => new Date(e.server_ts).toISOString())).toEqual(versions.map((a) => a.submitted_at));
      expect(row.submitted_at).toBe(versions.at(-1)?.submitted_at ?? '');
      // Survey: the answers in the event are the likert_<item> columns.
      const survey = of('survey.submitted')[0];
      for (const item of LIKERT_ITEMS) expect(row[`likert_${item}`]).toBe(survey ? String(survey.payload.answers[item]) : '');
      // Uploads: the event names the neutral dataset file, never the participant's own file name.
      for (const up of of('upload.stored')) {
        expect(up.payload.uploadId).toMatch(new RegExp(`^artifacts/${id}/\\d+-plot\\.png$`));
        expect(up.payload.fileName).toBe(path.basename(up.payload.uploadId));
      }
    }
  });

  it('datapackage.json and codebook.md describe exactly the columns the files have', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(exportDir, 'datapackage.json'), 'utf8'));
    const codebook = fs.readFileSync(path.join(exportDir, 'codebook.md'), 'utf8');
    for (const r of pkg.resources as { path: string; schema: { fields: { name: string }[] } }[]) {
      const declared = r.schema.fields.map((f) => f.name);
      const file = path.join(exportDir, r.path);
      const jsonl = r.path.endsWith('.csv') ? null : readJsonl(file);
      // The study has no group condition: its group_events.jsonl is there, and empty (no row names a column).
      if (r.path === 'group_events.jsonl') expect(jsonl, r.path).toEqual([]);
      else {
        const actual = jsonl === null ? csvHeader(file) : [...new Set(jsonl.flatMap((x) => Object.keys(x)))];
        expect(actual, r.path).toEqual(declared);
      }
      for (const name of declared) expect(codebook, `${r.path}: ${name}`).toContain(`| \`${name}\` |`);
    }
  });

  it('manifest row counts, byte sizes and sha256 hashes match the files; artifact files are all present', () => {
    for (const dir of [exportDir, pilotExportDir]) {
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
      for (const f of manifest.files as { path: string; rows: number | null; bytes: number; sha256: string }[]) {
        const bytes = fs.readFileSync(path.join(dir, f.path));
        expect(createHash('sha256').update(bytes).digest('hex'), f.path).toBe(f.sha256);
        expect(bytes.length, f.path).toBe(f.bytes);
        if (f.rows !== null) {
          const lines = bytes.toString('utf8').split('\n').filter((l) => l !== '').length;
          const records = f.path.endsWith('.csv') ? readCsv(path.join(dir, f.path)).length : lines;
          expect(records, f.path).toBe(f.rows);
        }
      }
      const rows = (name: string) => (name.endsWith('.csv') ? readCsv(path.join(dir, name)).length : readJsonl(path.join(dir, name)).length);
      expect(manifest.counts).toMatchObject({
        sessions: rows('sessions.csv'),
        messages: rows('messages.jsonl'),
        events: rows('events.jsonl'),
        artifacts: rows('artifacts.jsonl'),
        judgements: rows('judgements.csv'),
        annotations: rows('annotations.csv'),
        identities: null,
      });
      const pngs = listFiles(path.join(dir, 'artifacts'));
      expect(manifest.counts.artifact_files).toBe(pngs.length);
      const referenced = readJsonl<{ files: string[] }>(path.join(dir, 'artifacts.jsonl')).flatMap((a) => a.files);
      expect(new Set(referenced)).toEqual(new Set(pngs.map((p) => `artifacts/${p}`)));
      for (const png of pngs) expect(fs.readFileSync(path.join(dir, 'artifacts', png)).subarray(1, 4).toString('ascii')).toBe('PNG');
    }
  });
});

interface ProductivityRow {
  session_id: string;
  task: string;
  quality: string;
  cost: string;
  z_quality: string;
  z_cost: string;
  pz: string;
  quadrant: string;
}

/** Copies the dataset (science files only) into a fresh folder for a variant run of analyze. */
function copyDataset(name: string): string {
  const dir = path.join(work, name);
  fs.mkdirSync(dir);
  for (const f of ['sessions.csv', 'messages.jsonl', 'annotations.csv']) fs.copyFileSync(path.join(exportDir, f), path.join(dir, f));
  return dir;
}

describe('analyze on the export', () => {
  let asExported: ProductivityRow[];
  let summary: any;
  let sessions: CsvRow[];

  beforeAll(async () => {
    sessions = readCsv(path.join(exportDir, 'sessions.csv'));
    const out = path.join(work, 'analysis');
    await runCliOk('analyze', [exportDir, '--out', out], dataEnv());
    asExported = readCsv(path.join(out, 'productivity.csv')) as unknown as ProductivityRow[];
    summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8'));
  });

  it('writes one productivity row per session; scored sessions have cost = user_tokens + 0.5·agent_tokens and z, Pz as recomputed here', () => {
    expect(asExported.map((r) => r.session_id)).toEqual(sessions.map((r) => r.session_id));
    const scored = sessions.filter((r) => r.quality !== '');
    expect(scored).toHaveLength(8);
    // one task in this study, so z is taken over all scored sessions
    const q = scored.map((r) => Number(r.quality));
    const c = scored.map((r) => Number(r.user_tokens) + 0.5 * Number(r.agent_tokens));
    const zq = zScores(q);
    const zc = zScores(c);
    scored.forEach((row, i) => {
      const out = asExported.find((p) => p.session_id === row.session_id)!;
      expect(Number(out.quality)).toBe(q[i]);
      expect(Number(out.cost)).toBe(c[i]);
      expect(Number(out.z_quality)).toBeCloseTo(zq[i]!, 12);
      expect(Number(out.z_cost)).toBeCloseTo(zc[i]!, 12);
      expect(Number(out.pz)).toBeCloseTo(zq[i]! - zc[i]!, 12);
      const quadrant = zq[i]! >= 0 ? (zc[i]! < 0 ? 'productive_success' : 'costly_success') : zc[i]! < 0 ? 'cheap_failure' : 'unproductive_failure';
      expect(out.quadrant).toBe(quadrant);
    });
    const declined = asExported.find((p) => byPseudonym.get(p.session_id) === null)!;
    expect(declined).toMatchObject({ quality: '', z_quality: '', pz: '', quadrant: '' });
    expect(new Set(asExported.map((r) => r.quadrant).filter(Boolean)).size).toBeGreaterThan(1);
    expect(summary).toMatchObject({ n_sessions: 9, n_scored: 8, n_unscored: 1, lambda: 0.5, cost_definition: 'weighted', counts_source: 'sessions.csv' });
    for (const row of asExported.filter((r) => r.quality !== '')) {
      expect(summary.sessions[row.session_id]).toMatchObject({ quality: Number(row.quality), cost: Number(row.cost), pz: Number(row.pz), quadrant: row.quadrant });
    }
  });

  it('summary.json feature counts and Likert correlations agree with annotations.csv and the submitted answers', () => {
    const annotations = readCsv(path.join(exportDir, 'annotations.csv'));
    const has = (a: CsvRow, label: string) =>
      label === 'any_friction' ? a.friction !== 'none' : a.friction === label || (a.grounding ?? '').split(';').includes(label);
    const count = (session: string, speaker: string, label: string) =>
      annotations.filter((a) => a.session_id === session && (speaker === 'combined' || a.speaker === speaker) && has(a, label)).length;
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const { top, bottom } = summary.quartiles as { top: string[]; bottom: string[] };
    expect(top.length).toBeGreaterThan(0);
    const features = Object.entries(summary.feature_counts as Record<string, { top_mean: number; bottom_mean: number }>);
    expect(features.length).toBeGreaterThan(2);
    for (const [key, f] of features) {
      const [speaker, label] = key.split(':') as [string, string];
      expect(f.top_mean, key).toBeCloseTo(mean(top.map((id) => count(id, speaker, label))), 12);
      expect(f.bottom_mean, key).toBeCloseTo(mean(bottom.map((id) => count(id, speaker, label))), 12);
    }
    // The scripted answers make ai_usefulness = 6 − confidence for everyone: Spearman ρ = −1 exactly.
    expect(summary.likert_correlations['ai_usefulness|confidence']).toMatchObject({ n: 8, rho: -1 });
  });

  it('recomputing the token columns from messages.jsonl (its tokens field) gives the same costs', async () => {
    const dir = copyDataset('no-token-columns');
    const columns = csvHeader(path.join(dir, 'sessions.csv')).filter((c) => c !== 'user_tokens' && c !== 'agent_tokens');
    writeCsv(path.join(dir, 'sessions.csv'), columns, sessions);
    await runCliOk('analyze', [dir, '--out', path.join(dir, 'out')], dataEnv());
    const recomputed = readCsv(path.join(dir, 'out', 'productivity.csv'));
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'out', 'summary.json'), 'utf8')).counts_source).toBe('messages.jsonl');
    expect(recomputed.map((r) => [r.session_id, r.cost, r.pz])).toEqual(asExported.map((r) => [r.session_id, r.cost, r.pz]));
  });

  it('without the tokens field, analyze counts the REDACTED text: the cost of a session with redactions changes (science caveat)', async () => {
    // messages.jsonl always carries `tokens` (the o200k count of the ORIGINAL text) in our exports, and
    // analyze prefers it, so the normal pipeline is exact. A dataset stripped of it (or made by another
    // tool) can only be recounted from redacted text, where "[REDACTED:email]" / "[REDACTED:identity]"
    // have other token counts than what they replaced (here participant 0: +2 user tokens), which also
    // moves every z(C) and Pz of the task a little.
    const dir = copyDataset('no-tokens-anywhere');
    const columns = csvHeader(path.join(dir, 'sessions.csv')).filter((c) => c !== 'user_tokens' && c !== 'agent_tokens');
    writeCsv(path.join(dir, 'sessions.csv'), columns, sessions);
    const messages = readJsonl<ExportedMessage>(path.join(dir, 'messages.jsonl'));
    fs.writeFileSync(path.join(dir, 'messages.jsonl'), messages.map(({ tokens: _tokens, ...m }) => JSON.stringify(m)).join('\n') + '\n');
    await runCliOk('analyze', [dir, '--out', path.join(dir, 'out')], dataEnv());
    const recounted = readCsv(path.join(dir, 'out', 'productivity.csv'));
    for (const row of recounted) {
      const own = messages.filter((m) => m.session_id === row.session_id);
      const redactedCost = own.reduce((n, m) => n + countTokens(m.text) * (m.role === 'user' ? 1 : 0.5), 0);
      expect(Number(row.cost), row.session_id).toBe(redactedCost);
      const p = byPseudonym.get(row.session_id!);
      const originalCost = p ? p.rawUserTokens + 0.5 * p.rawAgentTokens : 0;
      if (p?.index === 0) expect(redactedCost).not.toBe(originalCost);
      else expect(redactedCost, `participant ${p?.index}`).toBe(originalCost);
    }
  });
});

describe('judge and annotate on the exported dataset agree with the runs on the study', () => {
  let dir: string;
  let studyAnnotations: CsvRow[];
  let datasetAnnotations: CsvRow[];
  let sessionsWithEmptyMessage: Set<string>;

  beforeAll(async () => {
    dir = path.join(work, 'dataset-rejudged');
    fs.cpSync(exportDir, dir, { recursive: true });
    await runCliOk('judge', [dir], judgeEnv());
    await runCliOk('annotate', [dir], dataEnv());
    studyAnnotations = readCsv(path.join(exportDir, 'annotations.csv'));
    datasetAnnotations = readCsv(path.join(dir, 'annotations.csv'));
    const messages = readJsonl<ExportedMessage>(path.join(exportDir, 'messages.jsonl'));
    sessionsWithEmptyMessage = new Set(messages.filter((m) => m.text === '').map((m) => m.session_id));
  });

  it('a second `judge --study` run makes no new model calls', async () => {
    const again = await runCliOk('judge', ['--study', 'visualization'], judgeEnv());
    expect(again.stderr).toMatch(/27\/27 samples, 0 new calls, 27 cache hits/);
  });

  const judgePrompts = (p: Participant) =>
    fake.requests.map((r) => JSON.stringify(r.body?.messages ?? [])).filter((m) => m.includes(`pipeline-participant-0${p.index}`));

  it('the judge model sees the same prompt from the study database as from the exported dataset', () => {
    // Reproducibility: Q can be recomputed from the published dataset alone, including for participant 0,
    // whose chat holds personal data that both sources redact the same way.
    for (const p of live()) {
      expect(judgePrompts(p), `participant ${p.index}`).toHaveLength(6); // 3 samples on the study + 3 on the dataset
      expect(new Set(judgePrompts(p)).size, `participant ${p.index}`).toBe(1);
    }
  });

  // `judge --study` redacts the prompt exactly as the exporter redacts the dataset: an email or platform
  // id typed in the chat never reaches the judge model.
  it('`judge --study` sends no personal data to the judge model', () => {
    const fromStudy = judgePrompts(participants[0]!).slice(0, 3);
    expect(fromStudy).toHaveLength(3);
    for (const prompt of fromStudy) {
      expect(prompt).not.toContain(EMAIL);
      expect(prompt).not.toContain(participants[0]!.pid);
    }
  });

  it('quality.csv from `judge <dataset-dir>` equals the quality column the study run exported', () => {
    const quality = new Map(readCsv(path.join(dir, 'quality.csv')).map((r) => [r.session_id!, r.quality!]));
    for (const row of readCsv(path.join(exportDir, 'sessions.csv'))) {
      if (row.quality === '') expect(quality.get(row.session_id!) ?? '', `declined ${row.session_id}`).toBe('');
      else expect(Number(quality.get(row.session_id!)), row.session_id).toBe(Number(row.quality));
    }
  });

  it('`annotate <dataset-dir>` gives the same labels at the same turns for sessions without an empty message', () => {
    const key = (a: CsvRow) => JSON.stringify([a.session_id, a.turn, a.speaker, a.friction, a.grounding]);
    const keep = (rows: CsvRow[]) => rows.filter((a) => !sessionsWithEmptyMessage.has(a.session_id!)).map(key).sort();
    expect(keep(datasetAnnotations).length).toBeGreaterThan(20);
    expect(keep(datasetAnnotations)).toEqual(keep(studyAnnotations));
  });

  // Both modes skip the empty stopped reply and keep message positions as turns.
  it('`annotate <dataset-dir>` and `annotate --study` agree on the session with an empty reply', () => {
    const key = (a: CsvRow) => JSON.stringify([a.session_id, a.turn, a.speaker]);
    const only = (rows: CsvRow[]) => rows.filter((a) => sessionsWithEmptyMessage.has(a.session_id!)).map(key).sort();
    expect(only(studyAnnotations).length).toBeGreaterThan(0);
    expect(only(studyAnnotations)).toEqual(only(datasetAnnotations));
  });
});

describe('agreement between the judge and two human raters', () => {
  it('reads the export and reports judge-vs-rater and rater-vs-rater statistics over the scored sessions', async () => {
    const scored = readCsv(path.join(exportDir, 'sessions.csv')).filter((r) => r.quality !== '');
    // rater_a agrees with the judge exactly; rater_b is one point harsher on every other session.
    const ratings = ['session_id,rater,score'];
    scored.forEach((r, i) => {
      const q = Math.round(Number(r.quality));
      ratings.push(`${r.session_id},rater_a,${q}`);
      ratings.push(`${r.session_id},rater_b,${i % 2 === 0 ? Math.max(1, q - 1) : q}`);
    });
    const ratingsFile = path.join(work, 'ratings.csv');
    fs.writeFileSync(ratingsFile, ratings.join('\n') + '\n');
    const out = path.join(work, 'agreement');
    const result = await runCli('agreement', [exportDir, '--ratings', ratingsFile, '--out', out], dataEnv());
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(fs.readFileSync(path.join(out, 'agreement.json'), 'utf8'));
    expect(report.judge_source).toBe('sessions.csv');
    const raters = Object.fromEntries((report.score_raters as { rater: string; n: number }[]).map((r) => [r.rater, r.n]));
    expect(raters).toEqual({ judge: 8, rater_a: 8, rater_b: 8 });
    const pairs = report.scores as Record<string, any>[];
    expect(pairs).toHaveLength(3);
    const pair = (a: string, b: string) => pairs.find((p) => p.rater_a === a && p.rater_b === b)!;
    const judgeVsA = pair('judge', 'rater_a');
    expect(judgeVsA).toMatchObject({ n: 8, spearman: { value: 1 }, kappa: { unweighted: { value: 1 }, quadratic: { value: 1 } } });
    // Reference values for judge Q = [1,3,4,4,4,1,3,4] (sessions.csv order) vs rater_b = [1,3,3,4,3,1,2,4]:
    expect(scored.map((r) => Number(r.quality))).toEqual([1, 3, 4, 4, 4, 1, 3, 4]);
    const judgeVsB = pair('judge', 'rater_b');
    expect(judgeVsB.n).toBe(8);
    // scipy.stats.spearmanr([1,3,4,4,4,1,3,4], [1,3,3,4,3,1,2,4]) → statistic 0.8807048459279794, pvalue 0.003873637882772364
    expect(judgeVsB.spearman.value).toBeCloseTo(0.8807048459279794, 12);
    expect(judgeVsB.spearman.p).toBeCloseTo(0.003873637882772364, 12);
    // Cohen's κ on the fixed 1–5 scale, numpy: 1 − Σ W·O / Σ W·E with W = [i≠j], |i−j|/4, ((i−j)/4)²
    // (O = 5×5 confusion counts, E = outer(row sums, column sums)/n) → 0.4782608695652174, 0.7142857142857143, 0.8695652173913043
    expect(judgeVsB.kappa.unweighted.value).toBeCloseTo(0.4782608695652174, 12);
    expect(judgeVsB.kappa.linear.value).toBeCloseTo(0.7142857142857143, 12);
    expect(judgeVsB.kappa.quadratic.value).toBeCloseTo(0.8695652173913043, 12);
    expect(pair('rater_a', 'rater_b')).toMatchObject({ n: 8, spearman: { value: judgeVsB.spearman.value } });
    expect(result.stdout).toMatch(/rater_a/);
  });
});
