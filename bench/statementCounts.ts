/**
 * What a load round asks of PostgreSQL, from pg_stat_statements (the bench's throwaway cluster loads it): the
 * statements the round's database ran, per participant and per reply, and the most frequent ones. Read with psql,
 * as the bench holds no database driver of its own.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { postgresBinDir, type PostgresCluster } from '../tests/support/postgresCluster';

function psql(cluster: PostgresCluster, sql: string): string {
  return execFileSync(path.join(postgresBinDir(), 'psql'), ['-h', '127.0.0.1', '-p', String(cluster.port), '-U', 'postgres', '-d', 'postgres', '-XAt', '-F', '\t', '-c', sql], { encoding: 'utf8' });
}

/** Creates the view (once per cluster) and clears its counts. */
export function resetStatementCounts(cluster: PostgresCluster): void {
  psql(cluster, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  psql(cluster, 'SELECT pg_stat_statements_reset()');
}

export interface StatementCounts {
  /** Statements the server sent (round trips). */
  total: number;
  /** Statements run inside them (functions, foreign-key checks). */
  nested: number;
  top: Array<{ calls: number; query: string }>;
  /** The most frequent statements run inside functions and triggers. */
  topInner: Array<{ calls: number; query: string }>;
  /** The statements that took the most execution time in all (ms; a function's includes its inner statements'), most first. */
  slowest: Array<{ calls: number; totalMs: number; inner: boolean; query: string }>;
}

/** The statements run in `database` since the last reset (BEGIN/COMMIT included: each is a round trip). */
export function statementCounts(cluster: PostgresCluster, database: string, topN = Number(process.env.BENCH_TOP_STATEMENTS ?? 8)): StatementCounts {
  const where = `dbid = (SELECT oid FROM pg_database WHERE datname = '${database.replace(/'/g, "''")}')`;
  const sum = (level: string) => Number(psql(cluster, `SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE ${where} AND toplevel = ${level}`).trim());
  const [total, nested] = [sum('true'), sum('false')];
  const rows = (sql: string) =>
    psql(cluster, sql)
      .trim()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.split('\t'));
  const query = (q: string | undefined) => (q ?? '').slice(0, 110);
  const normalised = `regexp_replace(query, '\\s+', ' ', 'g')`;
  const mostFrequent = (toplevel: boolean) =>
    rows(`SELECT calls, ${normalised} FROM pg_stat_statements WHERE ${where} AND toplevel = ${toplevel} ORDER BY calls DESC LIMIT ${topN}`).map(([calls, q]) => ({
      calls: Number(calls),
      query: query(q),
    }));
  const [top, topInner] = [mostFrequent(true), mostFrequent(false)];
  const slowest = rows(
    `SELECT calls, round(total_exec_time::numeric, 1), NOT toplevel, ${normalised} FROM pg_stat_statements WHERE ${where} ORDER BY total_exec_time DESC LIMIT ${topN}`,
  ).map(([calls, ms, inner, q]) => ({ calls: Number(calls), totalMs: Number(ms), inner: inner === 't', query: query(q) }));
  return { total, nested, top, topInner, slowest };
}

export function formatStatementCounts(c: StatementCounts, participants: number, replies: number): string[] {
  const per = (n: number) => (n / Math.max(1, participants)).toFixed(1);
  return [
    `  PostgreSQL statements: ${c.total} (${per(c.total)} per participant, ${(c.total / Math.max(1, replies)).toFixed(1)} per reply; ${c.nested} more inside them); most frequent:`,
    ...c.top.map((t) => `    ${String(t.calls).padStart(7)} (${per(t.calls)}/participant)  ${t.query}`),
    `  most frequent inside functions and triggers:`,
    ...c.topInner.map((t) => `    ${String(t.calls).padStart(7)} (${per(t.calls)}/participant)  ${t.query}`),
    `  most execution time in PostgreSQL (ms in all; a function's includes its inner statements, marked "in"):`,
    ...c.slowest.map((t) => `    ${t.totalMs.toFixed(1).padStart(9)} ms ${String(t.calls).padStart(7)} calls ${t.inner ? 'in' : '  '}  ${t.query}`),
  ];
}
