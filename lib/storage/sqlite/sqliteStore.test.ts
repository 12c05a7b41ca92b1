/**
 * SQLite-only behaviour of the store: connection settings, the migration runner, the append-only trigger,
 * and the transaction gate that serialises async transactions on the one connection.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from './database';
import { listMigrations, migrate } from './migrate';
import { openSqliteStore, type SqliteStore } from './sqliteStore';
import { WITHDRAWAL_SQL } from '../sql/admin';

const temps: string[] = [];
const stores: SqliteStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-db-'));
  temps.push(d);
  return d;
}
async function store(): Promise<SqliteStore> {
  const s = await openSqliteStore(path.join(tempDir(), 'tandem.sqlite'));
  stores.push(s);
  await s.studies.upsertLoaded('study', 'A study', 'hash', 'live', 1);
  await s.sessions.insert({ id: 'a', studyId: 'study', taskId: 't', conditionId: 'c', isPilot: false, createdAt: 1 });
  return s;
}

describe('SQLite database', () => {
  it('opens with WAL, foreign keys and a busy timeout', () => {
    const db = openDatabase(path.join(tempDir(), 'x.sqlite'));
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    } finally {
      db.close();
    }
  });

  it('applies migrations in numeric order, once, from every area', () => {
    const dir = tempDir();
    const migrations = path.join(dir, 'migrations');
    fs.mkdirSync(migrations);
    fs.writeFileSync(path.join(migrations, '010_b.sql'), 'ALTER TABLE a ADD COLUMN y INTEGER;');
    fs.writeFileSync(path.join(migrations, '002_a.sql'), 'CREATE TABLE a (x INTEGER);');
    fs.writeFileSync(path.join(migrations, '020_c.sql'), 'CREATE TABLE c (z INTEGER);');
    fs.writeFileSync(path.join(migrations, 'README.md'), 'ignored');
    const db = openDatabase(path.join(dir, 'x.sqlite'));
    try {
      expect(migrate(db, migrations)).toEqual([2, 10, 20]);
      expect(migrate(db, migrations)).toEqual([]);
      expect(db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all()).toEqual([2, 10, 20]);
      fs.writeFileSync(path.join(migrations, '003_late.sql'), 'CREATE TABLE late (q INTEGER);');
      expect(migrate(db, migrations)).toEqual([3]);
    } finally {
      db.close();
    }
  });

  it('rejects badly named or duplicate-numbered migrations, and rolls back a failing one', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, '001_a.sql'), 'CREATE TABLE a (x INTEGER);');
    fs.writeFileSync(path.join(dir, '001_b.sql'), 'CREATE TABLE b (x INTEGER);');
    expect(() => listMigrations(dir)).toThrow(/two migrations share number 1/);
    fs.rmSync(path.join(dir, '001_b.sql'));
    fs.writeFileSync(path.join(dir, 'two.sql'), '');
    expect(() => listMigrations(dir)).toThrow(/must look like 001_name\.sql/);
    fs.rmSync(path.join(dir, 'two.sql'));
    fs.writeFileSync(path.join(dir, '002_bad.sql'), 'CREATE TABLE ok2 (x INTEGER); THIS IS NOT SQL;');
    const db = openDatabase(path.join(dir, 'x.sqlite'));
    try {
      expect(() => migrate(db, dir)).toThrow(/002_bad\.sql failed/);
      expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'ok2'").get()).toBeUndefined();
      expect(db.prepare('SELECT version FROM schema_migrations').pluck().all()).toEqual([1]);
    } finally {
      db.close();
    }
  });

  it('keeps events append-only at the database level (trigger and unique seq)', async () => {
    const s = await store();
    await s.events.append('a', 'x', {}, 1, null);
    await s.close();
    const db = openDatabase(s.file);
    try {
      expect(() => db.prepare("UPDATE events SET type = 'z' WHERE session_id = 'a'").run()).toThrow(/append-only/);
      expect(() => db.prepare("INSERT INTO events (session_id, seq, type, payload, server_ts) VALUES ('a', 1, 'dup', '{}', 1)").run()).toThrow(/UNIQUE/);
    } finally {
      db.close();
    }
  });

  it("finds a participant's sessions by study and platform id with one index seek, not a read of the study (037)", () => {
    const db = openDatabase(path.join(tempDir(), 'plan.sqlite'));
    try {
      migrate(db);
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${WITHDRAWAL_SQL.findSessionIds.sqlite}`).all('study', 'PID') as { detail: string }[]).map((r) => r.detail);
      expect(plan.join('\n')).toMatch(/SEARCH identities USING INDEX identities_study_user \(study_id=\? AND platform_user_id=\?\)/);
    } finally {
      db.close();
    }
  });
});

describe('SQLite event appends', () => {
  it('writes an event outside a transaction together with its storage count, or not at all', async () => {
    const s = await store();
    await s.events.append('a', 'kept', { n: 1 }, 1, null);
    // A second connection makes the counter's update fail: the event before it must not stay behind.
    const other = openDatabase(s.file);
    try {
      other.exec("CREATE TRIGGER refuse_bytes BEFORE UPDATE OF stored_bytes ON sessions BEGIN SELECT RAISE(ABORT, 'no budget'); END");
      await expect(s.events.append('a', 'lost', { n: 2 }, 2, null)).rejects.toThrow(/no budget/);
      expect((await s.events.listForSession('a')).map((e) => e.type)).toEqual(['kept']);
      other.exec('DROP TRIGGER refuse_bytes');
      expect(await s.events.append('a', 'next', { n: 3 }, 3, null)).toBe(2);
    } finally {
      other.close();
    }
  });
});

describe('SQLite transaction gate', () => {
  it('makes a Store call wait while a transaction is open across awaits, and run after its COMMIT', async () => {
    const s = await store();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const order: string[] = [];
    const tx = s.transaction(async (t) => {
      await t.events.append('a', 'in-tx-1', {}, 1, null);
      await gate; // the transaction stays open across an unrelated await
      await t.events.append('a', 'in-tx-2', {}, 2, null);
      order.push('commit');
    });
    // Outside the transaction: must not slip in between in-tx-1 and in-tx-2.
    const outside = s.events.append('a', 'outside', {}, 3, null).then((seq) => {
      order.push('outside');
      return seq;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual([]);
    release();
    await tx;
    expect(await outside).toBe(3);
    expect(order).toEqual(['commit', 'outside']);
    expect((await s.events.listForSession('a')).map((e) => e.type)).toEqual(['in-tx-1', 'in-tx-2', 'outside']);
  });

  it('rolls back everything of a rejected transaction, and a savepoint only its own part', async () => {
    const s = await store();
    await expect(
      s.transaction(async (t) => {
        await t.events.append('a', 'lost', {}, 1, null);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await s.transaction(async (t) => {
      await t.events.append('a', 'kept', {}, 2, null);
      await expect(
        t.transaction(async (inner) => {
          await inner.events.append('a', 'undone', {}, 3, null);
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
      await t.events.append('a', 'kept-too', {}, 4, null);
    });
    expect((await s.events.listForSession('a')).map((e) => [e.seq, e.type])).toEqual([
      [1, 'kept'],
      [2, 'kept-too'],
    ]);
  });

  it('refuses a Store call from inside its own transaction (it would wait for itself) and a tx used after the end', async () => {
    const s = await store();
    let leaked: Parameters<Parameters<typeof s.transaction>[0]>[0] | undefined;
    await expect(
      s.transaction(async (t) => {
        leaked = t;
        await s.events.append('a', 'wrong handle', {}, 1, null);
      }),
    ).rejects.toThrow(/use the transaction’s tx/);
    expect(await s.events.count('a')).toBe(0);
    await expect(leaked!.events.append('a', 'late', {}, 2, null)).rejects.toThrow(/already ended/);
  });

  it('runs queued transactions one after the other (no lost update of the per-session seq)', async () => {
    const s = await store();
    const seqs = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        s.transaction(async (t) => {
          await new Promise((r) => setTimeout(r, i % 3));
          return t.events.append('a', `e${i}`, {}, i, null);
        }),
      ),
    );
    expect([...seqs].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('waits for an open transaction before closing', async () => {
    const s = await store();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const tx = s.transaction(async (t) => {
      await gate;
      await t.events.append('a', 'late-but-committed', {}, 1, null);
    });
    const closed = s.close();
    release();
    await tx;
    await closed;
    const again = await openSqliteStore(s.file);
    stores.push(again);
    expect(await again.events.count('a')).toBe(1);
    await expect(s.events.count('a')).rejects.toThrow(/closed/);
  });
});
