/**
 * The shared row mappers where the engines hand over different value shapes, and the one statement built
 * from a column list. (Every other mapping runs through the store contract tests on both engines:
 * lib/storage/store.test.ts, lib/storage/postgres/pgStore.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { toAuditCounts } from './audit';
import { toExportSession, type ExportSessionRaw } from './exportSnapshot';
import { judgementUpsertSql } from './judgements';

const session = (answers: ExportSessionRaw['answers']): ExportSessionRaw => ({
  id: 's1',
  task_id: 't1',
  condition_id: 'c1',
  status: 'submitted',
  is_pilot: 0,
  created_at: 1000,
  consented_at: 1100,
  submitted_at: 2000,
  user_tokens: 10,
  agent_tokens: 20,
  user_turns: 1,
  agent_turns: 1,
  quality: null,
  answers,
});

describe('toExportSession', () => {
  const tuples: [string, string, number][] = [
    ['q1', 'likert', 4],
    ['attn', 'attention', 2],
  ];

  it('reads the answers aggregate as SQLite returns it (JSON text) and as PostgreSQL does (parsed json)', () => {
    const fromText = toExportSession(session(JSON.stringify(tuples)));
    const fromJson = toExportSession(session(tuples));
    expect(fromText).toEqual(fromJson);
    expect(fromText.numericAnswers).toEqual({ q1: 4, attn: 2 });
    expect(fromText.answerKinds).toEqual({ q1: 'likert', attn: 'attention' });
  });

  it('gives empty answers for a session without numeric answers (NULL aggregate)', () => {
    const r = toExportSession(session(null));
    expect(r.numericAnswers).toEqual({});
    expect(r.answerKinds).toEqual({});
    expect(r.isPilot).toBe(false);
  });
});

describe('toAuditCounts', () => {
  it('sums the per-action counts and takes the earliest and latest times', () => {
    const counts = toAuditCounts([
      { action: 'login', n: 3, first: 50, last: 900 },
      { action: 'export', n: 2, first: 10, last: 400 },
    ]);
    expect(counts).toEqual({ total: 5, byAction: { login: 3, export: 2 }, firstAt: 10, lastAt: 900 });
  });

  it('has no times without rows', () => {
    expect(toAuditCounts([])).toEqual({ total: 0, byAction: {}, firstAt: null, lastAt: null });
  });
});

describe('judgementUpsertSql', () => {
  it('has one placeholder per inserted column, numbered for PostgreSQL', () => {
    const sql = judgementUpsertSql((i) => `$${i}`);
    const inserted = /INSERT INTO judgements \(([^)]*)\)/.exec(sql)![1]!.split(', ');
    expect(sql.match(/\$\d+/g)).toEqual(inserted.map((_, i) => `$${i + 1}`));
  });

  it('updates every column but the key on conflict', () => {
    const sql = judgementUpsertSql(() => '?');
    const updated = [...sql.matchAll(/(\w+) = excluded\.\1/g)].map((m) => m[1]);
    const inserted = /INSERT INTO judgements \(([^)]*)\)/.exec(sql)![1]!.split(', ');
    const key = /ON CONFLICT \(([^)]*)\)/.exec(sql)![1]!.split(', ');
    expect(key).toEqual(['session_id', 'artifact_version', 'rubric_id', 'requested_model', 'sample']);
    expect(updated).toEqual(inserted.filter((c) => !key.includes(c)));
  });
});
