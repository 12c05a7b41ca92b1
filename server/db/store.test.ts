import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from './database';
import { listMigrations, migrate } from './migrate';
import { openStore, type Store } from './store';

const temps: string[] = [];
const stores: Store[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-db-'));
  temps.push(d);
  return d;
}
function store(): Store {
  const s = openStore(tempDir());
  stores.push(s);
  return s;
}
function seedSession(s: Store, id = 'sess-1'): void {
  s.studies.upsertLoaded('study', 'A study', 'hash', 'live', 1);
  s.sessions.insert({ id, studyId: 'study', taskId: 't', conditionId: 'c', isPilot: false, createdAt: 1 });
}

describe('database', () => {
  it('opens with WAL, foreign keys and a busy timeout', () => {
    const s = store();
    expect(s.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(s.db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(s.db.pragma('busy_timeout', { simple: true })).toBe(5000);
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

  it('numbers events 1, 2, 3… per session and keeps them append-only', () => {
    const s = store();
    seedSession(s, 'a');
    seedSession(s, 'b');
    expect(s.events.append('a', 'x', { n: 1 }, 10, null)).toBe(1);
    expect(s.events.append('a', 'y', { n: 2 }, 11, 5)).toBe(2);
    expect(s.events.append('b', 'x', {}, 12, null)).toBe(1);
    expect(s.events.listForSession('a')).toEqual([
      { sessionId: 'a', seq: 1, type: 'x', payload: { n: 1 }, serverTs: 10, clientTs: null },
      { sessionId: 'a', seq: 2, type: 'y', payload: { n: 2 }, serverTs: 11, clientTs: 5 },
    ]);
    expect(() => s.db.prepare("UPDATE events SET type = 'z' WHERE session_id = 'a'").run()).toThrow(/append-only/);
    expect(() => s.db.prepare("INSERT INTO events (session_id, seq, type, payload, server_ts) VALUES ('a', 2, 'dup', '{}', 1)").run()).toThrow(/UNIQUE/);
  });

  it('writes an event and its derived row atomically: a failure leaves neither', () => {
    const s = store();
    seedSession(s);
    const row = {
      id: 'm1', sessionId: 'sess-1', eventSeq: 0, role: 'user' as const, text: 'hi', clientId: 'client-1', replyTo: null, status: 'complete' as const,
      tokens: 1, provider: null, providerUrl: null, model: null, requestedModel: null, params: null, usage: null, ttftMs: null,
      durationMs: null, finishReason: null, interrupted: false, attempts: null, error: null, createdAt: 1,
    };
    s.transaction(() => {
      const seq = s.events.append('sess-1', 'message.user', {}, 1, 1);
      s.messages.insert({ ...row, eventSeq: seq });
    });
    // Same clientId again: the message insert fails, so the event must not survive either.
    expect(() =>
      s.transaction(() => {
        const seq = s.events.append('sess-1', 'message.user', {}, 2, 2);
        s.messages.insert({ ...row, id: 'm2', eventSeq: seq });
      }),
    ).toThrow(/UNIQUE/);
    expect(s.events.count('sess-1')).toBe(1);
    expect(s.messages.listForSession('sess-1').map((m) => m.id)).toEqual(['m1']);
  });

  it('deleting a session (withdrawal) removes all its rows', () => {
    const s = store();
    seedSession(s);
    s.identities.insert({ sessionId: 'sess-1', studyId: 'study', platform: 'prolific', platformUserId: 'P', platformStudyId: null, platformSessionId: null, urlParams: { PROLIFIC_PID: 'P' }, createdAt: 1 });
    s.tokens.insert('h', 'sess-1', 1);
    const seq = s.events.append('sess-1', 'message.user', {}, 1, 1);
    const base = { sessionId: 'sess-1', text: 't', status: 'complete' as const, tokens: 1, provider: null, providerUrl: null, model: null, requestedModel: null, params: null, usage: null, ttftMs: null, durationMs: null, finishReason: null, interrupted: false, attempts: null, error: null, createdAt: 1 };
    s.messages.insert({ ...base, id: 'u', eventSeq: seq, role: 'user', clientId: 'c1', replyTo: null });
    s.messages.insert({ ...base, id: 'r', eventSeq: seq + 1, role: 'assistant', clientId: null, replyTo: 'u' });
    s.artifacts.insertVersion('sess-1', { a: 'b' }, seq, 1);
    s.db.prepare("DELETE FROM sessions WHERE id = 'sess-1'").run();
    for (const table of ['identities', 'participant_tokens', 'events', 'messages', 'artifacts'])
      expect(s.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get(), table).toBe(0);
  });

  it('keeps a study status across reloads of its file', () => {
    const s = store();
    s.studies.upsertLoaded('x', 'X', 'h1', 'live', 1);
    s.studies.setStatus('x', 'closed', 2);
    const again = s.studies.upsertLoaded('x', 'X v2', 'h2', 'live', 3);
    expect(again).toMatchObject({ status: 'closed', title: 'X v2', definitionHash: 'h2' });
  });
});
