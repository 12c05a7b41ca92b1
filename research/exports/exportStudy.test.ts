import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../lib/storage';
import { createTestStoreTarget, STORE_ENGINES } from '../../tests/support/testStores';
import { exportStudy } from './exportStudy';
import { seedSession, seedStudyRow } from '../../tests/support/seedStudy';
import { loadOrCreatePseudonymKey, sessionPseudonym } from '../../lib/pseudonym';

const PERSONAL = {
  pid: '5f3a9c0d1e2b3c4d5e6f7a8b',
  email: 'jane.doe@example.org',
  phone: '+44 20 7946 0958',
  phoneUs: '(555) 123-4567',
  ip: '192.168.14.77',
  urlToken: 'https://app.prolific.com/submissions/complete?PROLIFIC_PID=5f3a9c0d1e2b3c4d5e6f7a8b&cc=XYZ',
};
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

let dataDir: string;
let store: Store;

function seedPersonalSession(): Promise<string> {
  return seedSession(store, dataDir, 'demo', {
    platformUserId: PERSONAL.pid,
    messages: [
      { role: 'user', text: `Hi, I am ${PERSONAL.pid}, mail me at ${PERSONAL.email} or call ${PERSONAL.phone} / ${PERSONAL.phoneUs}` },
      { role: 'assistant', text: `Sure. Your IP ${PERSONAL.ip} is irrelevant; the link ${PERSONAL.urlToken} is yours.` },
      { role: 'user', text: 'Plan a 3-day trip to Lisbon for 800 euros on 2026-12-01.' },
      { role: 'assistant', text: 'Day 1: Alfama, tram 28.' },
    ],
    artifact: { plan: `Itinerary by ${PERSONAL.email}: day 1 Alfama` },
    image: { fileName: 'jane_doe_private.png', bytes: PNG },
    likert: { usefulness: 4, confidence: 5 },
  });
}

function scienceText(dir: string): string {
  return ['sessions.csv', 'messages.jsonl', 'events.jsonl', 'artifacts.jsonl', 'judgements.csv', 'annotations.csv', 'codebook.md', 'datapackage.json', 'manifest.json']
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
}

/** Every file under `dir`, as paths relative to it with '/' separators. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    return entry.isDirectory() ? filesUnder(dir, rel) : [rel];
  });
}

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const jsonl = (path: string) => readFileSync(path, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describe.each(STORE_ENGINES)('exportStudy (%s)', (engine) => {
  beforeEach(async () => {
    const target = await createTestStoreTarget(engine, 'export');
    dataDir = target.dataDir;
    store = await openStore(target);
    await await seedStudyRow(store, 'demo');
  });
  afterEach(async () => {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

    it('writes the dataset layout with pseudonyms, redacted text and a manifest that hashes every file', async () => {
      const sessionId = await seedPersonalSession();
      const out = join(dataDir, 'out');
      const { manifest } = await exportStudy({ store, dataDir, studyId: 'demo', outDir: out, includePilot: false, includeIdentities: false });

      expect(readdirSync(out).sort()).toEqual(
        [
          'annotations.csv', 'artifacts', 'artifacts.jsonl', 'codebook.md', 'datapackage.json', 'deviations.csv', 'events.jsonl', 'group_events.jsonl', 'group_judgements.csv', 'groups.csv',
          'judgements.csv', 'manifest.json', 'messages.jsonl', 'preregistration.json', 'sessions.csv',
        ].sort(),
      );
      const pseudonym = sessionPseudonym(loadOrCreatePseudonymKey(dataDir), sessionId);
      const sessions = parse(readFileSync(join(out, 'sessions.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
      expect(sessions).toHaveLength(1);
      expect(sessions[0]).toMatchObject({
        session_id: pseudonym,
        task: 'travel',
        condition: 'baseline',
        status: 'completed',
        is_pilot: 'false',
        user_turns: '2',
        agent_turns: '2',
        quality: '',
        likert_confidence: '5',
        likert_usefulness: '4',
      });
      expect(Number(sessions[0]!.user_tokens)).toBeGreaterThan(0);
      expect(Number(sessions[0]!.duration_s)).toBeGreaterThan(0);

      const messages = jsonl(join(out, 'messages.jsonl'));
      expect(messages.map((m) => m.seq)).toEqual([1, 2, 3, 4]);
      expect(messages[0]!.text).toBe('Hi, I am [REDACTED:identity], mail me at [REDACTED:email] or call [REDACTED:phone] / [REDACTED:phone]');
      expect(messages[1]!.text).toBe('Sure. Your IP [REDACTED:ip] is irrelevant; the link [REDACTED:url] is yours.');
      expect(messages[2]!.text).toBe('Plan a 3-day trip to Lisbon for 800 euros on 2026-12-01.');
      expect(messages[1]).toMatchObject({ role: 'assistant', model: 'offline-demo-1', ttft_ms: 120, finish_reason: 'stop', interrupted: false });

      const events = jsonl(join(out, 'events.jsonl'));
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(events.every((e) => e.session_id === pseudonym)).toBe(true);

      const artifacts = jsonl(join(out, 'artifacts.jsonl'));
      expect(artifacts).toHaveLength(1);
      const files = artifacts[0]!.files as string[];
      expect(files).toEqual([`artifacts/${pseudonym}/1-figure.png`]);
      expect((artifacts[0]!.fields as Record<string, string>).figure).toBe(files[0]);
      expect((artifacts[0]!.fields as Record<string, string>).plan).toBe('Itinerary by [REDACTED:email]: day 1 Alfama');
      expect(readFileSync(join(out, files[0]!)).equals(PNG)).toBe(true);

      // no identity, email, phone, IP, participant file name or server session id anywhere in the science files
      const all = scienceText(out);
      for (const value of [...Object.values(PERSONAL), '7946 0958', '123-4567', 'jane_doe_private', sessionId]) expect(all).not.toContain(value);
      expect(existsSync(join(out, 'identities.csv'))).toBe(false);

      // manifest: counts, hashes, redactions
      expect(manifest.counts).toMatchObject({ sessions: 1, messages: 4, artifacts: 1, artifact_files: 1, identities: null });
      // each personal string is counted where it occurs: message text and its event payload; artifact and its event
      expect(manifest.redactions).toMatchObject({ email: 4, phone: 4, ip: 2, url: 2 });
      expect(manifest.redactions.identity).toBeGreaterThanOrEqual(1);
      for (const f of manifest.files) {
        expect(sha(join(out, f.path))).toBe(f.sha256);
        expect(statSync(join(out, f.path)).size).toBe(f.bytes);
      }
      expect(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'))).toEqual(JSON.parse(JSON.stringify(manifest)));
      // the pseudonym key never enters the export
      const keyHex = loadOrCreatePseudonymKey(dataDir).toString('hex');
      expect(all).not.toContain(keyHex);
      // judge tables are empty: header only
      expect(readFileSync(join(out, 'judgements.csv'), 'utf8').trim()).toBe('session_id,rubric_id,rubric_hash,model,sample,score,parse_ok,cached,artifact_version,images');
      expect(readFileSync(join(out, 'annotations.csv'), 'utf8').trim()).toBe('session_id,turn,speaker,friction,grounding');
    });

    it('lists every file of the export, uploaded images included, in the manifest with its size and sha256', async () => {
      const big = Buffer.concat([PNG, Buffer.alloc(300_000, 7)]); // spans several stream chunks
      const first = await seedSession(store, dataDir, 'demo', { image: { fileName: 'a.png', bytes: PNG }, artifact: { plan: 'a' } });
      const second = await seedSession(store, dataDir, 'demo', { image: { fileName: 'b.png', bytes: big }, artifact: { plan: 'b' } });
      const out = join(dataDir, 'hashed');
      const { manifest } = await exportStudy({ store, dataDir, studyId: 'demo', outDir: out, includePilot: false, includeIdentities: false });

      const key = loadOrCreatePseudonymKey(dataDir);
      const images = [`artifacts/${sessionPseudonym(key, first)}/1-figure.png`, `artifacts/${sessionPseudonym(key, second)}/1-figure.png`];
      const onDisk = filesUnder(out).filter((f) => f !== 'manifest.json').sort();
      expect(onDisk).toEqual(expect.arrayContaining(images));
      // nothing on disk is missing from the manifest, nothing listed is missing on disk, nothing is listed twice
      expect(manifest.files.map((f) => f.path).sort()).toEqual(onDisk);
      for (const f of manifest.files) {
        expect(f.sha256, f.path).toBe(sha(join(out, f.path)));
        expect(f.bytes, f.path).toBe(statSync(join(out, f.path)).size);
      }
      const entry = (path: string) => manifest.files.find((f) => f.path === path);
      expect(entry(images[0]!)).toEqual({ path: images[0], rows: null, bytes: PNG.length, sha256: createHash('sha256').update(PNG).digest('hex') });
      expect(entry(images[1]!)).toEqual({ path: images[1], rows: null, bytes: big.length, sha256: createHash('sha256').update(big).digest('hex') });
      expect(manifest.counts.artifact_files).toBe(2);
      // manifest.json on disk says the same
      expect(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).files).toEqual(manifest.files);
    });

    it('writes identities.csv only with includeIdentities, holding the platform ids', async () => {
      const sessionId = await seedPersonalSession();
      const out = join(dataDir, 'with-ids');
      const { manifest } = await exportStudy({ store, dataDir, studyId: 'demo', outDir: out, includePilot: false, includeIdentities: true });
      const rows = parse(readFileSync(join(out, 'identities.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
      const pseudonym = sessionPseudonym(loadOrCreatePseudonymKey(dataDir), sessionId);
      expect(rows.every((r) => r.session_id === pseudonym)).toBe(true);
      expect(rows).toContainEqual(expect.objectContaining({ source: 'url_param', key: 'PROLIFIC_PID', value: PERSONAL.pid }));
      expect(rows).toContainEqual(expect.objectContaining({ source: 'platform', key: 'platform_user_id', value: PERSONAL.pid }));
      expect(manifest.counts.identities).toBe(rows.length);
      // the science files stay clean even in this mode
      expect(scienceText(out)).not.toContain(PERSONAL.pid);
    });

    it('leaves pilot sessions out unless asked, and marks them', async () => {
      await seedPersonalSession();
      await seedSession(store, dataDir, 'demo', { isPilot: true, messages: [{ role: 'user', text: 'pilot run' }] });
      const plain = await exportStudy({ store, dataDir, studyId: 'demo', outDir: join(dataDir, 'a'), includePilot: false, includeIdentities: false });
      expect(plain.manifest.counts).toMatchObject({ sessions: 1, excluded_pilot_sessions: 1 });
      const withPilot = await exportStudy({ store, dataDir, studyId: 'demo', outDir: join(dataDir, 'b'), includePilot: true, includeIdentities: false });
      expect(withPilot.manifest.counts).toMatchObject({ sessions: 2, excluded_pilot_sessions: 0 });
      const rows = parse(readFileSync(join(dataDir, 'b', 'sessions.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
      expect(rows.map((r) => r.is_pilot).sort()).toEqual(['false', 'true']);
    });

    it('uses the survey definition for likert order and the attention check', async () => {
      await seedSession(store, dataDir, 'demo', { likert: { b_item: 2, a_item: 3, check: 4 }, artifact: { plan: 'x' } });
      const out = join(dataDir, 'survey');
      await exportStudy({
        store,
        dataDir,
        studyId: 'demo',
        outDir: out,
        includePilot: false,
        includeIdentities: false,
        survey: {
          items: [
            { id: 'b_item', kind: 'likert', prompt: 'B?', points: 5, anchors: ['no', 'yes'], required: true },
            { id: 'a_item', kind: 'likert', prompt: 'A?', points: 7, anchors: ['no', 'yes'], required: true },
            { id: 'check', kind: 'attention_check', prompt: 'Pick 4', points: 5, anchors: ['no', 'yes'], expected: 4 },
          ],
        },
      });
      const text = readFileSync(join(out, 'sessions.csv'), 'utf8');
      expect(text.split('\n')[0]!.includes(',attention_check_passed,likert_b_item,likert_a_item,consented_at,telemetry_batches,')).toBe(true);
      const [row] = parse(text, { columns: true }) as Record<string, string>[];
      expect(row).toMatchObject({ likert_b_item: '2', likert_a_item: '3', attention_check_passed: 'true' });
      expect(readFileSync(join(out, 'codebook.md'), 'utf8')).toContain('Post-task survey (1–7): "A?"');
    });

    it('closes every file it opened when it fails part-way, so the folder can be removed at once', async () => {
      await seedPersonalSession();
      const outDir = join(dataDir, 'broken-export');
      // Fails after the first session's rows went to every file (the progress callback runs then).
      const failPartWay = () => {
        throw new Error('stopped part-way');
      };
      await expect(exportStudy({ store, dataDir, studyId: 'demo', outDir, includePilot: false, includeIdentities: false, onProgress: failPartWay })).rejects.toThrow(/part-way/);
      // No descriptor of this process points into the folder any more (Linux /proc), and removing it right
      // away (as the dashboard's export job does) leaves no stream to fail later.
      const openInside = readdirSync('/proc/self/fd').flatMap((fd) => {
        try {
          return [readlinkSync(join('/proc/self/fd', fd))];
        } catch {
          return [];
        }
      }).filter((target) => target.startsWith(outDir));
      expect(openInside).toEqual([]);
      rmSync(outDir, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 50)); // a stream still opening its file would fail here, unhandled
      expect(existsSync(outDir)).toBe(false);
    });

    it('refuses a non-empty output folder and an unknown study, naming them', async () => {
      await seedPersonalSession();
      const out = join(dataDir, 'x');
      await exportStudy({ store, dataDir, studyId: 'demo', outDir: out, includePilot: false, includeIdentities: false });
      await expect(exportStudy({ store, dataDir, studyId: 'demo', outDir: out, includePilot: false, includeIdentities: false })).rejects.toThrow(/is not empty/);
      await expect(exportStudy({ store, dataDir, studyId: 'nope', outDir: join(dataDir, 'y'), includePilot: false, includeIdentities: false })).rejects.toThrow(/no study "nope"/);
    });
});
