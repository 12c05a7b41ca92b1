/**
 * `--images attach`: uploaded plots reach the judge model as image content parts, from the study
 * database and from a dataset made by the real exporter. Real SQLite in a temp dir, upload files on
 * disk, the real openai client against the local fake OpenAI server, the CLI as a child process.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportStudy } from '../exports/exportStudy';
import { seedSession, seedStudyRow } from '../../tests/support/seedStudy';
import { reply, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../../tests/support/fakeOpenAI';
import { encodePng } from '../../tests/support/png';
import { openStore, type Store } from '../../lib/storage';
import { OpenAIProvider } from '../../lib/llm/openaiProvider';
import { studyTasks } from './cliSupport';
import { REPO_ROOT, runCli } from '../../tests/support/judgeCliSupport';
import { IMAGE_TEMPLATE_HASH, TEMPLATE_HASH } from './prompt';
import type { JudgeSettings } from './runJudge';
import { judgeStudy } from './judgeStudy';
import { loadRubrics } from '../../lib/studyFiles/rubricFiles';

const EMAIL = 'jane.doe@example.org';
const PLOT_LABEL = 'Your plot (image)'; // the label of field "plot" in studies/visualization.yaml
const RED = encodePng(6, 4, () => [220, 20, 20]);
const BLUE = encodePng(6, 4, () => [20, 20, 220]);
const GREEN = encodePng(6, 4, () => [20, 220, 20]);

let fake: FakeOpenAI;
let dataDir: string;
let store: Store;
/** Server session id → the absolute path of its stored plot. */
const plotFile = new Map<string, string>();
let sessionA: string;
let sessionB: string;

const tasks = studyTasks('visualization', { studiesDir: join(REPO_ROOT, 'studies'), surveysDir: join(REPO_ROOT, 'surveys') }, (m) => {
  throw new Error(m);
});

/** A visualization session whose latest artifact names a plot uploaded for field "plot" (file + uploads row, as storeUpload writes them). */
async function seedPlotSession(tag: string, plot: Buffer, chat: string): Promise<string> {
  const id = await seedSession(store, dataDir, 'visualization', {
    taskId: 'study-habits',
    messages: [
      { role: 'user', text: chat },
      { role: 'assistant', text: 'A scatter plot of hours against score would show it.' },
    ],
    artifact: { hypothesis: 'draft' },
    likert: { confidence: 4 },
  });
  const uploadId = randomUUID();
  const rel = join('uploads', id, `${uploadId}.png`);
  mkdirSync(join(dataDir, 'uploads', id), { recursive: true });
  writeFileSync(join(dataDir, rel), plot);
  const now = Date.UTC(2026, 10, 2, 10, 0, 0);
  const uploadSeq = (await store.events.append(id, 'upload.stored', { uploadId, fieldId: 'plot' }, now, null));
  (await store.uploads.insert({
    id: uploadId, sessionId: id, fieldId: 'plot', fileName: 'plot.png', contentType: 'image/png', bytes: plot.length,
    sha256: createHash('sha256').update(plot).digest('hex'), storagePath: rel, eventSeq: uploadSeq, createdAt: now,
  }));
  const fields = {
    hypothesis: `${tag}: students who study more hours score higher (ask ${EMAIL}).`,
    code: 'import pandas as pd\ndf = pd.read_csv("study_habits.csv")\ndf.plot.scatter("hours_studied", "exam_score")',
    plot: uploadId,
    interpretation: `${tag}: the points rise to the right, so the hypothesis holds.`,
  };
  const seq = (await store.events.append(id, 'artifact.submitted', { fields }, now + 1, null));
  (await store.artifacts.insertVersion(id, fields, seq, now + 1));
  plotFile.set(id, join(dataDir, rel));
  return id;
}

const userContent = (r: RecordedRequest): unknown => r.body.messages[1].content;
const textOf = (r: RecordedRequest): string => {
  const c = userContent(r);
  return typeof c === 'string' ? c : (c as Array<{ type: string; text?: string }>).filter((p) => p.type === 'text').map((p) => p.text).join('\n');
};
const requestsFor = (tag: string) => fake.requests.filter((r) => textOf(r).includes(`${tag}: students`));
const dataUrl = (bytes: Buffer) => `data:image/png;base64,${bytes.toString('base64')}`;
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** What a sample records about the plot it attached. */
const attachedAudit = (bytes: Buffer) => ({ field: 'plot', mediaType: 'image/png', bytes: bytes.length, sha256: sha(bytes) });
/** The `images` list of every stored sample of a session as JSON (null for a text-only sample), by sample. */
const imagesCells = async (sessionId: string) =>
  (await store.judgements.listForSession(sessionId)).sort((a, b) => a.sample - b.sample).map((r) => (r.images === undefined ? null : JSON.stringify(r.images)));

const settings = (extra: Partial<JudgeSettings> = {}): JudgeSettings => ({
  model: 'gpt-4o-mini', samples: 2, concurrency: 2, temperature: 0.7, maxTokens: 400, baseSeed: 0, ...extra,
});
const provider = () => new OpenAIProvider({ baseURL: fake.url, apiKey: 'k', timeoutMs: 5000, maxAttempts: 1 });
const judge = (extra: Partial<JudgeSettings> = {}) => {
  const p = provider();
  return judgeStudy({ store, dataDir, studyId: 'visualization', tasks, rubrics: loadRubrics(), settings: settings(extra), provider: p, providerInfo: { name: p.name, url: p.baseURL } });
};

beforeEach(async () => {
  fake = await startFakeOpenAI({ responder: () => reply('The plot supports the claim. Therefore, the final score is 4.') });
  dataDir = mkdtempSync(join(tmpdir(), 'tandem-vision-judge-'));
  store = await openStore({ dataDir });
  await seedStudyRow(store, 'visualization');
  sessionA = await seedPlotSession('alpha', RED, `I am ${EMAIL}; does study time matter?`);
  sessionB = await seedPlotSession('beta', BLUE, 'Does sleep matter?');
});
afterEach(async () => {
  await store.close();
  await fake.close();
  rmSync(dataDir, { recursive: true, force: true });
  plotFile.clear();
});

describe('judge --study with --images attach', () => {
  it('sends each stored upload as an image part after a text part naming its field, and audits it by sha256', async () => {
    const result = await judge({ images: 'attach', imageDetail: 'low' });
    expect(result.samples).toHaveLength(4);
    for (const [tag, bytes] of [['alpha', RED], ['beta', BLUE]] as const) {
      const requests = requestsFor(tag);
      expect(requests).toHaveLength(2);
      for (const r of requests) {
        const parts = userContent(r) as Array<Record<string, any>>;
        expect(parts).toHaveLength(3);
        expect(parts[0]!.type).toBe('text');
        expect(parts[0]!.text).toContain('## plot\n[image 1, attached after this text: the image uploaded for this field]');
        expect(parts[1]).toEqual({ type: 'text', text: expect.stringContaining(`Image 1 of the submission: the image uploaded for the artifact field "${PLOT_LABEL}" (## plot`) });
        // The exact bytes of the stored upload, base64 in a data URL.
        expect(parts[2]).toEqual({ type: 'image_url', image_url: { url: dataUrl(bytes), detail: 'low' } });
        expect(readFileSync(plotFile.get(tag === 'alpha' ? sessionA : sessionB)!)).toEqual(bytes);
        // Study-mode text is redacted as the export redacts it.
        expect(JSON.stringify(r.body)).not.toContain(EMAIL);
      }
    }
    const sampleA = result.samples.find((s) => s.sessionId === sessionA)!;
    expect(sampleA).toMatchObject({ score: 4, parseOk: true, images: [{ field: 'plot', mediaType: 'image/png', bytes: RED.length, sha256: sha(RED) }] });
    expect(sampleA.templateHash).toBe(IMAGE_TEMPLATE_HASH);
    expect(IMAGE_TEMPLATE_HASH).not.toBe(TEMPLATE_HASH);

    // The cached request records the image by sha256 and media type, never its bytes.
    const cache = await store.openReplyCache();
    const requests: string[] = [];
    for (const s of result.samples) requests.push((await cache.get(s.cacheKey))!.requestJson);
    await cache.close();
    expect(requests).toHaveLength(4);
    expect(requests.some((j) => j.includes(sha(RED)) && j.includes('"mediaType":"image/png"'))).toBe(true);
    for (const j of requests) {
      expect(j).not.toContain(RED.toString('base64'));
      expect(j).not.toContain(BLUE.toString('base64'));
      expect(j).not.toContain('data:image');
    }
  });

  it('describe (the default) sends text only, noting that an image was uploaded', async () => {
    const result = await judge();
    expect(result.samples).toHaveLength(4);
    expect(fake.requests).toHaveLength(4);
    for (const r of fake.requests) {
      expect(typeof userContent(r)).toBe('string');
      expect(userContent(r)).toContain('## plot\n[an image was uploaded here; it is not shown to you]');
      expect(JSON.stringify(r.body)).not.toContain('image_url');
    }
    expect(result.samples.every((s) => s.images === undefined && s.score === 4)).toBe(true);
  });

  it('a missing upload file: that session gets an error and no score, the other session is judged', async () => {
    unlinkSync(plotFile.get(sessionB)!);
    const result = await judge({ images: 'attach' });
    expect(requestsFor('beta')).toHaveLength(0);
    expect(requestsFor('alpha')).toHaveLength(2);
    const repo = store.judgements;
    const rowsB = (await store.judgements.listForSession(sessionB));
    expect(rowsB).toHaveLength(2);
    for (const row of rowsB) {
      expect(row.score).toBeNull();
      expect(row.parseOk).toBe(false);
      expect(row.failureReason).toMatch(new RegExp(`^image: field "plot" \\(Your plot \\(image\\)\\): image file not found: upload [0-9a-f-]+ \\(uploads/${sessionB}/`));
    }
    // Attach mode sent no image for B: its rows say so with an empty list (not NULL, which means text-only).
    expect(rowsB.map((row) => row.images)).toEqual([[], []]);
    expect((await store.judgements.listForSession(sessionA)).map((row) => row.images)).toEqual([[attachedAudit(RED)], [attachedAudit(RED)]]);
    expect((await store.judgements.getQuality(sessionB))).toMatchObject({ quality: null, samples: 2, parsed: 0 });
    expect((await store.judgements.getQuality(sessionA))).toMatchObject({ quality: 4, samples: 2, parsed: 2 });
    expect(result.samples.filter((s) => s.sessionId === sessionA).every((s) => s.score === 4)).toBe(true);
  });

  it('a file changed after upload (sha256 differs from the uploads row) is refused for that session', async () => {
    writeFileSync(plotFile.get(sessionA)!, GREEN);
    const result = await judge({ images: 'attach', samples: 1 });
    expect(requestsFor('alpha')).toHaveLength(0);
    expect(result.samples.find((s) => s.sessionId === sessionA)?.failureReason).toContain(`has sha256 ${sha(GREEN)}, not the ${sha(RED)} recorded in the uploads table`);
    expect(result.samples.find((s) => s.sessionId === sessionB)?.score).toBe(4);
  });
});

describe('judge --study stores the attached images with each sample (judgements.images)', () => {
  it('attach: every sample lists the sha256 of its session\'s stored upload, also when replayed from the cache, and the export carries the list', async () => {
    await judge({ images: 'attach' });
    const repo = store.judgements;
    for (const [session, bytes] of [[sessionA, RED], [sessionB, BLUE]] as const) {
      const [upload] = (await store.uploads.listForSession(session));
      expect(upload?.sha256).toBe(sha(bytes));
      const expected = [{ field: 'plot', mediaType: 'image/png', bytes: upload!.bytes, sha256: upload!.sha256 }];
      const rows = (await store.judgements.listForSession(session));
      expect(rows.map((r) => r.sample)).toEqual([0, 1]);
      for (const row of rows) expect(row).toMatchObject({ score: 4, cached: false, templateHash: IMAGE_TEMPLATE_HASH, images: expected });
      expect((await imagesCells(session))).toEqual([JSON.stringify(expected), JSON.stringify(expected)]);
    }

    // A rerun answers from the reply cache and still records what was attached.
    fake.reset();
    await judge({ images: 'attach' });
    expect(fake.requests).toHaveLength(0);
    expect((await store.judgements.listForSession(sessionA)).map((r) => [r.cached, r.images])).toEqual([
      [true, [attachedAudit(RED)]],
      [true, [attachedAudit(RED)]],
    ]);

    // The dataset export writes the list into judgements.csv; its sha256 is the exported plot's in the manifest.
    const out = join(dataDir, 'dataset');
    const { manifest } = await exportStudy({ store, dataDir, studyId: 'visualization', outDir: out, includePilot: false, includeIdentities: false });
    const csv = parse(readFileSync(join(out, 'judgements.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(csv).toHaveLength(4);
    const plots = manifest.files.filter((f) => /^artifacts\/[^/]+\/1-plot\.png$/.test(f.path));
    expect(plots.map((f) => f.sha256).sort()).toEqual([sha(RED), sha(BLUE)].sort());
    for (const row of csv) {
      const images = JSON.parse(row.images!) as Array<{ sha256: string }>;
      expect(images).toHaveLength(1);
      const plot = plots.find((f) => f.sha256 === images[0]!.sha256);
      expect(plot?.path.split('/')[1]).toBe(row.session_id);
      expect(images).toEqual([attachedAudit(images[0]!.sha256 === sha(RED) ? RED : BLUE)]);
    }
    const codebook = readFileSync(join(out, 'codebook.md'), 'utf8');
    expect(codebook).toMatch(/\| `images` \| string, may be empty \| Images shown to the judge model \(judge --images attach\), as a JSON array of \{field, mediaType, bytes, sha256\}/);
    const datapackage = JSON.parse(readFileSync(join(out, 'datapackage.json'), 'utf8')) as { resources: Array<{ name: string; schema: { fields: Array<{ name: string }> } }> };
    expect(datapackage.resources.find((r) => r.name === 'judgements')?.schema.fields.map((f) => f.name)).toEqual(Object.keys(csv[0]!));
  });

  it('describe (text only) stores NULL; rejudging the same samples with attach fills the list in, and describe again clears it', async () => {
    await judge();
    const repo = store.judgements;
    expect([...(await imagesCells(sessionA)), ...(await imagesCells(sessionB))]).toEqual([null, null, null, null]);
    expect((await store.judgements.listForStudy('visualization')).every((r) => r.images === undefined && r.templateHash === TEMPLATE_HASH)).toBe(true);
    const out = join(dataDir, 'describe-dataset');
    await exportStudy({ store, dataDir, studyId: 'visualization', outDir: out, includePilot: false, includeIdentities: false });
    const csv = parse(readFileSync(join(out, 'judgements.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(csv.map((r) => r.images)).toEqual(['', '', '', '']);

    await judge({ images: 'attach', samples: 1 });
    expect((await imagesCells(sessionA))).toEqual([JSON.stringify([attachedAudit(RED)]), null]);
    await judge({ samples: 1 });
    expect((await imagesCells(sessionA))).toEqual([null, null]);
  });
});

describe('judge <dataset-dir> --images attach (dataset made by the exporter)', () => {
  it('sends the same request as --study; reruns hit the cache; changed bytes miss it; bytes unlike the manifest are a per-session error', async () => {
    await judge({ images: 'attach', samples: 1 });
    const fromStudy = fake.requests.map((r) => JSON.stringify(r.body.messages)).sort();
    expect(fromStudy).toHaveLength(2);

    const out = join(dataDir, 'dataset');
    const { manifest } = await exportStudy({ store, dataDir, studyId: 'visualization', outDir: out, includePilot: false, includeIdentities: false });
    const artifacts = readFileSync(join(out, 'artifacts.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { session_id: string; version: number; fields: Record<string, string> });
    const latest = (tag: string) => artifacts.find((a) => a.version === 2 && a.fields.hypothesis!.startsWith(tag))!;
    const plotA = latest('alpha').fields.plot!;
    expect(plotA).toMatch(/^artifacts\/[^/]+\/1-plot\.png$/);
    expect(manifest.files.find((f) => f.path === plotA)?.sha256).toBe(sha(RED));

    const env = { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'k' };
    const args = [out, '--images', 'attach', '--samples', '1'];
    fake.reset();
    const first = await runCli('cli/judge.ts', args, env);
    expect(first.stderr).toContain('done: 2/2 samples, 2 new calls');
    expect(first.code).toBe(0);
    // Same prompt, same image bytes from the database and from the published dataset.
    expect(fake.requests.map((r) => JSON.stringify(r.body.messages)).sort()).toEqual(fromStudy);
    const audit = readFileSync(join(out, 'judgements.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(audit.find((s) => s.sessionId === latest('alpha').session_id).images).toEqual([{ field: 'plot', mediaType: 'image/png', bytes: RED.length, sha256: sha(RED) }]);
    expect(readFileSync(join(out, 'judgements.jsonl'), 'utf8')).not.toContain(RED.toString('base64'));
    // A dataset-mode run rewrites judgements.csv with the same images column the exporter writes.
    const rows = parse(readFileSync(join(out, 'judgements.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(JSON.parse(rows.find((r) => r.session_id === latest('alpha').session_id)!.images!)).toEqual([
      { field: 'plot', mediaType: 'image/png', bytes: RED.length, sha256: sha(RED) },
    ]);

    const rerun = await runCli('cli/judge.ts', args, env);
    expect(rerun.stderr).toContain('0 new calls, 2 cache hits');
    expect(fake.requests).toHaveLength(2);

    // New bytes for alpha's plot (recorded in the manifest, as a fresh export would): only alpha is asked again.
    writeFileSync(join(out, plotA), GREEN);
    const manifestFile = join(out, 'manifest.json');
    const original = readFileSync(manifestFile, 'utf8');
    writeFileSync(manifestFile, original.replace(sha(RED), sha(GREEN)));
    const changed = await runCli('cli/judge.ts', args, env);
    expect(changed.stderr).toContain('1 new calls, 1 cache hits');
    expect(fake.requests).toHaveLength(3);
    expect((userContent(fake.requests[2]!) as Array<Record<string, any>>)[2]!.image_url.url).toBe(dataUrl(GREEN));

    // Bytes that do not match the manifest: alpha is not judged and says why; beta still is; exit code 1.
    writeFileSync(manifestFile, original);
    const tampered = await runCli('cli/judge.ts', args, env);
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toContain(`session ${latest('alpha').session_id} not judged: its image could not be attached: field "plot" (${PLOT_LABEL}): ${plotA} has sha256 ${sha(GREEN)}, not the ${sha(RED)} recorded in manifest.json`);
    expect(fake.requests).toHaveLength(3);
    const csv = parse(readFileSync(join(out, 'judgements.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(csv.map((r) => [r.session_id, r.score, r.parse_ok]).sort()).toEqual(
      [[latest('alpha').session_id, '', 'false'], [latest('beta').session_id, '4', 'true']].sort(),
    );

    // A plot missing from the dataset: that session is named, the other is judged (from the cache).
    writeFileSync(manifestFile, original.replace(sha(RED), sha(GREEN)));
    const plotB = latest('beta').fields.plot!;
    unlinkSync(join(out, plotB));
    const missing = await runCli('cli/judge.ts', args, env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`session ${latest('beta').session_id} not judged: its image could not be attached: field "plot" (${PLOT_LABEL}): image file not found: ${plotB}`);
    expect(missing.stderr).not.toContain(`session ${latest('alpha').session_id} not judged`);
    expect(missing.stderr).toContain('1 session(s) not judged');
    expect(fake.requests).toHaveLength(3);
    const quality = parse(readFileSync(join(out, 'quality.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(quality.find((q) => q.session_id === latest('alpha').session_id)).toMatchObject({ quality: '4', parsed: '1' });
    expect(quality.find((q) => q.session_id === latest('beta').session_id)).toMatchObject({ quality: '', samples: '1', parsed: '0' });
  });

  it('the CLI rejects a bad --images value, and --image-detail without attach, naming the flag', async () => {
    const bad = await runCli('cli/judge.ts', [dataDir, '--images', 'base64'], {});
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/judge: --images: .*"describe".*"attach"/);
    const detail = await runCli('cli/judge.ts', [dataDir, '--image-detail', 'low'], {});
    expect(detail.code).toBe(2);
    expect(detail.stderr).toContain('--image-detail: only applies with --images attach');
    const badDetail = await runCli('cli/judge.ts', [dataDir, '--images', 'attach', '--image-detail', 'huge'], {});
    expect(badDetail.code).toBe(2);
    expect(badDetail.stderr).toContain('--image-detail:');
  });
});
