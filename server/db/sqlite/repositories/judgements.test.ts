/**
 * The `images` column of `judgements` (migration 012): applied to a database made before it, mapped
 * both ways by JudgementsRepository, validated on read, and read by the exporter with or without it.
 * Real SQLite files in temp dirs.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportStudy } from '../../../exports/exportStudy';
import { seedSession, seedStudyRow } from '../../../exports/fixtures/seedStudy';
import type { AttachedImage, LoadedImage } from '../../../judge/judgeImages';
import { openDatabase } from '../../database';
import { listMigrations, migrate } from '../migrate';
import { createStore, DATABASE_FILE_NAME, openStore, type Store } from '../store';
import { ExportReader } from './adminExport';
import { JudgementsRepository, type JudgementRecord } from './judgements';

const PLOT: AttachedImage = { field: 'plot', mediaType: 'image/png', bytes: 1234, sha256: 'a'.repeat(64) };
const SKETCH: AttachedImage = { field: 'sketch', mediaType: 'image/jpeg', bytes: 99, sha256: 'b'.repeat(64) };

function sample(sessionId: string, extra: Partial<JudgementRecord> = {}): JudgementRecord {
  return {
    sessionId, artifactVersion: 1, rubricId: 'r', rubricVersion: '1', rubricHash: 'rh', templateHash: 'th', parserVersion: 'p1',
    sample: 0, requestedModel: 'gpt-4o-mini', reportedModel: 'gpt-4o-mini-2024', systemFingerprint: null, provider: 'openai',
    providerUrl: 'http://x', parameters: { temperature: 0.7, maxTokens: 400 }, seed: 0, score: 4, parseOk: true, failureReason: null,
    rawReply: 'the final score is 4.', reaskReply: null, reasked: false, usage: null, latencyMs: 5, cached: false, cacheKey: 'k',
    transportError: null, createdAt: Date.UTC(2026, 10, 3), ...extra,
  };
}

let dataDir: string;
const stores: Store[] = [];
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'tandem-judgements-'));
});
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A study database with every migration but 012 applied (020 included), as a server of the previous release left it. */
function storeBeforeImages(): Store {
  const oldMigrations = join(dataDir, 'migrations-without-012');
  mkdirSync(oldMigrations);
  for (const m of listMigrations()) if (m.version !== 12) copyFileSync(m.file, join(oldMigrations, basename(m.file)));
  const file = join(dataDir, DATABASE_FILE_NAME);
  const db = openDatabase(file);
  expect(migrate(db, oldMigrations)).toEqual([1, 2, 10, 11, 20]);
  const store = createStore(db, file);
  stores.push(store);
  return store;
}

const columnsOf = (store: Store) => (store.db.prepare('SELECT name FROM pragma_table_info(?)').all('judgements') as { name: string }[]).map((c) => c.name);
const imagesCells = (store: Store) => store.db.prepare('SELECT images FROM judgements ORDER BY session_id, sample').pluck().all();
const exportedJudgements = async (out: string) => {
  await exportStudy({ dataDir, studyId: 'demo', outDir: join(dataDir, out), includePilot: false, includeIdentities: false });
  return parse(readFileSync(join(dataDir, out, 'judgements.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
};

describe('migration 012 (judgements.images)', () => {
  it('applies to a database made before it: earlier samples keep no image list, and new ones store theirs', async () => {
    const old = storeBeforeImages();
    seedStudyRow(old, 'demo');
    const sessionId = seedSession(old, dataDir, 'demo', { artifact: { plan: 'a' } });
    // A sample as the previous release stored it (its INSERT had no images column).
    old.db
      .prepare(
        `INSERT INTO judgements (session_id, artifact_version, rubric_id, rubric_version, rubric_hash, template_hash, parser_version,
           sample, requested_model, provider, params, seed, score, parse_ok, reasked, latency_ms, cached, cache_key, created_at)
         VALUES (?, 1, 'r', '1', 'rh', 'th', 'p1', 0, 'gpt-4o-mini', 'openai', '{"temperature":0.7,"maxTokens":400}', 0, 3, 1, 0, 5, 0, 'k0', 1)`,
      )
      .run(sessionId);
    expect(columnsOf(old)).not.toContain('images');

    // The exporter reads a database as it finds it (read-only, no migration): no images column, empty cells.
    const before = await exportedJudgements('export-before');
    expect(before).toHaveLength(1);
    expect(before[0]).toMatchObject({ score: '3', images: '' });

    expect(migrate(old.db)).toEqual([12]);
    expect(migrate(old.db)).toEqual([]);
    expect(columnsOf(old)).toContain('images');
    const repo = new JudgementsRepository(old.db);
    const [earlier] = repo.listForSession(sessionId);
    expect(earlier).toMatchObject({ sessionId, sample: 0, score: 3 });
    expect(earlier).not.toHaveProperty('images');

    repo.upsert(sample(sessionId, { sample: 1, images: [PLOT, SKETCH] }));
    expect(repo.listForSession(sessionId).map((j) => j.images)).toEqual([undefined, [PLOT, SKETCH]]);
    expect(imagesCells(old)).toEqual([null, JSON.stringify([PLOT, SKETCH])]);

    const after = await exportedJudgements('export-after');
    expect(after.map((r) => [r.sample, r.images])).toEqual([['0', ''], ['1', JSON.stringify([PLOT, SKETCH])]]);
  });

  it('opening a store on the old database applies it too (the way the server and the judge CLI open it)', () => {
    const old = storeBeforeImages();
    old.close();
    stores.splice(0);
    const reopened = openStore(dataDir);
    stores.push(reopened);
    expect(columnsOf(reopened)).toContain('images');
    expect(reopened.db.prepare('SELECT version FROM schema_migrations WHERE version = 12').pluck().get()).toBe(12);
  });
});

describe('JudgementsRepository images', () => {
  let store: Store;
  let sessionId: string;
  let repo: JudgementsRepository;
  beforeEach(() => {
    store = openStore(dataDir);
    stores.push(store);
    seedStudyRow(store, 'demo');
    sessionId = seedSession(store, dataDir, 'demo', { artifact: { plan: 'a' } });
    repo = new JudgementsRepository(store.db);
  });

  it('maps no list to NULL and [] to [] both ways; a rerun of the same sample replaces its list', () => {
    repo.upsert(sample(sessionId, { sample: 0 }));
    repo.upsert(sample(sessionId, { sample: 1, images: [] }));
    repo.upsert(sample(sessionId, { sample: 2, images: [PLOT] }));
    expect(imagesCells(store)).toEqual([null, '[]', JSON.stringify([PLOT])]);
    const read = repo.listForStudy('demo');
    expect(read.map((j) => j.images)).toEqual([undefined, [], [PLOT]]);
    expect(read[2]).toEqual(sample(sessionId, { sample: 2, images: [PLOT] }));

    // Same (session, version, rubric, model, sample): attach after describe, then describe after attach.
    repo.upsert(sample(sessionId, { sample: 0, images: [SKETCH] }));
    repo.upsert(sample(sessionId, { sample: 2 }));
    expect(imagesCells(store)).toEqual([JSON.stringify([SKETCH]), '[]', null]);
  });

  it('stores only field, media type, size and sha256 of an image, never the bytes it was sent with', () => {
    const loaded: LoadedImage = { ...PLOT, label: 'Your plot', base64: Buffer.from('PNG bytes').toString('base64') };
    repo.upsert(sample(sessionId, { images: [loaded] }));
    const cell = imagesCells(store)[0] as string;
    expect(JSON.parse(cell)).toEqual([PLOT]);
    expect(cell).not.toContain(loaded.base64);
    expect(repo.listForSession(sessionId)[0]?.images).toEqual([PLOT]);
  });

  it('a malformed images cell is an error naming the row, in the repository and in the export reader', () => {
    repo.upsert(sample(sessionId, { images: [PLOT] }));
    const corrupt = (text: string) => store.db.prepare('UPDATE judgements SET images = ?').run(text);

    corrupt('[{"field":"plot","mediaType":"image/png"');
    expect(() => repo.listForSession(sessionId)).toThrow(`judgements.images of session ${sessionId} sample 0 is not JSON`);

    corrupt(JSON.stringify([{ field: 'plot', mediaType: 'image/png', bytes: 10, sha256: 'not-a-hash' }]));
    expect(() => repo.listForSession(sessionId)).toThrow(/judgements\.images of session .* sample 0 is not a list of \{field, mediaType, bytes, sha256\}:[\s\S]*sha256/);

    corrupt(JSON.stringify({ field: 'plot' }));
    expect(() => repo.listForSession(sessionId)).toThrow(/is not a list of/);
    // The exporter's reader checks the cell the same way (it would otherwise write it into judgements.csv).
    const reader = ExportReader.open(store.file);
    try {
      expect(() => [...reader.judgements(sessionId)]).toThrow(`judgements.images of session ${sessionId} sample 0 is not a list of`);
    } finally {
      reader.close();
    }
  });
});
