/**
 * The `images` column of `judgements` (migration 012): applied to a database made before it, mapped
 * both ways by the SQLite judgements repository, validated on read, and read by the exporter with or without it.
 * Real SQLite files in temp dirs; raw SQL (to fake an old release's rows and corrupt cells) on a second connection.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportStudy } from '../../research/exports/exportStudy';
import { seedSession, seedStudyRow } from '../support/seedStudy';
import type { AttachedImage } from '../../lib/storage';
import { openDatabase, type SqliteDatabase } from '../../lib/storage/sqlite/database';
import { listMigrations, migrate } from '../../lib/storage/sqlite/migrate';
import { DATABASE_FILE_NAME, type JudgementRecord, type JudgementsRepo, type Store } from '../../lib/storage';
import { ExportReader } from '../../lib/storage/sqlite/exportSnapshot';

/** An image as the judge loads it for a call: the audit fields plus its label and base64 bytes, which must never reach the database. */
type LoadedImage = AttachedImage & { label: string; base64: string };
import { createSqliteStore, openSqliteStore } from '../../lib/storage/sqlite/sqliteStore';

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
const handles: SqliteDatabase[] = [];
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'tandem-judgements-'));
});
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const db of handles.splice(0)) if (db.open) db.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A raw connection to the study file, for what no store method does (old rows, corrupt cells, schema). */
function rawDb(): SqliteDatabase {
  const db = openDatabase(join(dataDir, DATABASE_FILE_NAME));
  handles.push(db);
  return db;
}

/** A study database with every migration but 012 applied (020 included), as a server of the previous release left it. */
function storeBeforeImages(): { store: Store; db: SqliteDatabase } {
  const oldMigrations = join(dataDir, 'migrations-without-012');
  mkdirSync(oldMigrations);
  for (const m of listMigrations()) if (m.version !== 12) copyFileSync(m.file, join(oldMigrations, basename(m.file)));
  const file = join(dataDir, DATABASE_FILE_NAME);
  const db = openDatabase(file);
  expect(migrate(db, oldMigrations)).toEqual(listMigrations().map((m) => m.version).filter((v) => v !== 12));
  const store = createSqliteStore(db, file);
  stores.push(store);
  return { store, db };
}

const columnsOf = (db: SqliteDatabase) => (db.prepare('SELECT name FROM pragma_table_info(?)').all('judgements') as { name: string }[]).map((c) => c.name);
const imagesCells = (db: SqliteDatabase) => db.prepare('SELECT images FROM judgements ORDER BY session_id, sample').pluck().all();
const exportedJudgements = async (store: Store, out: string) => {
  await exportStudy({ store, dataDir, studyId: 'demo', outDir: join(dataDir, out), includePilot: false, includeIdentities: false });
  return parse(readFileSync(join(dataDir, out, 'judgements.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
};

describe('migration 012 (judgements.images)', () => {
  it('applies to a database made before it: earlier samples keep no image list, and new ones store theirs', async () => {
    const { store: old, db } = storeBeforeImages();
    await seedStudyRow(old, 'demo');
    const sessionId = await seedSession(old, dataDir, 'demo', { artifact: { plan: 'a' } });
    // A sample as the previous release stored it (its INSERT had no images column).
    db
      .prepare(
        `INSERT INTO judgements (session_id, artifact_version, rubric_id, rubric_version, rubric_hash, template_hash, parser_version,
           sample, requested_model, provider, params, seed, score, parse_ok, reasked, latency_ms, cached, cache_key, created_at)
         VALUES (?, 1, 'r', '1', 'rh', 'th', 'p1', 0, 'gpt-4o-mini', 'openai', '{"temperature":0.7,"maxTokens":400}', 0, 3, 1, 0, 5, 0, 'k0', 1)`,
      )
      .run(sessionId);
    expect(columnsOf(db)).not.toContain('images');

    // The exporter reads a database as it finds it (read-only, no migration): no images column, empty cells.
    const before = await exportedJudgements(old, 'export-before');
    expect(before).toHaveLength(1);
    expect(before[0]).toMatchObject({ score: '3', images: '' });

    expect(migrate(db)).toEqual([12]);
    expect(migrate(db)).toEqual([]);
    expect(columnsOf(db)).toContain('images');
    const repo = old.judgements;
    const [earlier] = await repo.listForSession(sessionId);
    expect(earlier).toMatchObject({ sessionId, sample: 0, score: 3 });
    expect(earlier).not.toHaveProperty('images');

    await repo.upsert(sample(sessionId, { sample: 1, images: [PLOT, SKETCH] }));
    expect((await repo.listForSession(sessionId)).map((j) => j.images)).toEqual([undefined, [PLOT, SKETCH]]);
    expect(imagesCells(db)).toEqual([null, JSON.stringify([PLOT, SKETCH])]);

    const after = await exportedJudgements(old, 'export-after');
    expect(after.map((r) => [r.sample, r.images])).toEqual([['0', ''], ['1', JSON.stringify([PLOT, SKETCH])]]);
  });

  it('opening a store on the old database applies it too (the way the server and the judge CLI open it)', async () => {
    const { store: old } = storeBeforeImages();
    await old.close();
    stores.splice(0);
    const reopened = await openSqliteStore(join(dataDir, DATABASE_FILE_NAME));
    stores.push(reopened);
    const db = rawDb();
    expect(columnsOf(db)).toContain('images');
    expect(db.prepare('SELECT version FROM schema_migrations WHERE version = 12').pluck().get()).toBe(12);
  });
});

describe('JudgementsRepository images', () => {
  let store: Store;
  let sessionId: string;
  let repo: JudgementsRepo;
  let db: SqliteDatabase;
  beforeEach(async () => {
    store = await openSqliteStore(join(dataDir, DATABASE_FILE_NAME));
    stores.push(store);
    db = rawDb();
    await seedStudyRow(store, 'demo');
    sessionId = await seedSession(store, dataDir, 'demo', { artifact: { plan: 'a' } });
    repo = store.judgements;
  });

  it('maps no list to NULL and [] to [] both ways; a rerun of the same sample replaces its list', async () => {
    await repo.upsert(sample(sessionId, { sample: 0 }));
    await repo.upsert(sample(sessionId, { sample: 1, images: [] }));
    await repo.upsert(sample(sessionId, { sample: 2, images: [PLOT] }));
    expect(imagesCells(db)).toEqual([null, '[]', JSON.stringify([PLOT])]);
    const read = await repo.listForStudy('demo');
    expect(read.map((j) => j.images)).toEqual([undefined, [], [PLOT]]);
    expect(read[2]).toEqual(sample(sessionId, { sample: 2, images: [PLOT] }));

    // Same (session, version, rubric, model, sample): attach after describe, then describe after attach.
    await repo.upsert(sample(sessionId, { sample: 0, images: [SKETCH] }));
    await repo.upsert(sample(sessionId, { sample: 2 }));
    expect(imagesCells(db)).toEqual([JSON.stringify([SKETCH]), '[]', null]);
  });

  it('stores only field, media type, size and sha256 of an image, never the bytes it was sent with', async () => {
    const loaded: LoadedImage = { ...PLOT, label: 'Your plot', base64: Buffer.from('PNG bytes').toString('base64') };
    await repo.upsert(sample(sessionId, { images: [loaded] }));
    const cell = imagesCells(db)[0] as string;
    expect(JSON.parse(cell)).toEqual([PLOT]);
    expect(cell).not.toContain(loaded.base64);
    expect((await repo.listForSession(sessionId))[0]?.images).toEqual([PLOT]);
  });

  it('a malformed images cell is an error naming the row, in the repository and in the export reader', async () => {
    await repo.upsert(sample(sessionId, { images: [PLOT] }));
    const corrupt = (text: string) => db.prepare('UPDATE judgements SET images = ?').run(text);

    corrupt('[{"field":"plot","mediaType":"image/png"');
    await expect(repo.listForSession(sessionId)).rejects.toThrow(`judgements.images of session ${sessionId} sample 0 is not JSON`);

    corrupt(JSON.stringify([{ field: 'plot', mediaType: 'image/png', bytes: 10, sha256: 'not-a-hash' }]));
    await expect(repo.listForSession(sessionId)).rejects.toThrow(/judgements\.images of session .* sample 0 is not a list of \{field, mediaType, bytes, sha256\}:[\s\S]*sha256/);

    corrupt(JSON.stringify({ field: 'plot' }));
    await expect(repo.listForSession(sessionId)).rejects.toThrow(/is not a list of/);
    // The exporter's reader checks the cell the same way (it would otherwise write it into judgements.csv).
    const reader = ExportReader.open(join(dataDir, DATABASE_FILE_NAME));
    try {
      expect(() => [...reader.judgements(sessionId)]).toThrow(`judgements.images of session ${sessionId} sample 0 is not a list of`);
    } finally {
      reader.close();
    }
  });
});
