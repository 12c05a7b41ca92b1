import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { installSqliteMeter, meterDifference, type SqliteMeterRow } from '../harness/sqliteMeter';
import { ServerChild } from '../harness/serverChild';
import { joinStudy, visitLinkParams } from '../../research/simulation/http';
import { tempFolders } from '../support/tempFolders';

const tempDir = tempFolders('tandem-sqlite-meter-test-');

const callsOf = (rows: readonly SqliteMeterRow[], sql: string) => rows.find((r) => r.sql === sql)?.calls ?? 0;

describe('sqliteMeter', () => {
  it('counts each statement by its SQL (run, get, all, exec, and the BEGIN/COMMIT of db.transaction) until uninstalled', () => {
    const statementPrototype = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1')) as Record<string, unknown>;
    const originals = { run: statementPrototype.run, get: statementPrototype.get, all: statementPrototype.all, exec: Database.prototype.exec };
    const meter = installSqliteMeter();
    try {
      const db = new Database(path.join(tempDir(), 'm.db'));
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
      const insert = db.prepare('INSERT INTO t (v)\n   VALUES (?)');
      insert.run('a');
      insert.run('b');
      db.transaction(() => insert.run('c')).immediate();
      expect(db.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 3 });
      expect(db.prepare('SELECT v FROM t ORDER BY id').all()).toHaveLength(3);
      const rows = meter.snapshot();
      // Whitespace is collapsed; the transaction's statements are better-sqlite3's own prepared BEGIN IMMEDIATE/COMMIT.
      expect(callsOf(rows, 'INSERT INTO t (v) VALUES (?)')).toBe(3);
      expect(callsOf(rows, 'BEGIN IMMEDIATE')).toBe(1);
      expect(callsOf(rows, 'COMMIT')).toBe(1);
      expect(callsOf(rows, 'SELECT COUNT(*) AS n FROM t')).toBe(1);
      expect(callsOf(rows, 'SELECT v FROM t ORDER BY id')).toBe(1);
      expect(callsOf(rows, 'CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)')).toBe(1);
      expect(rows.every((r) => r.ms >= 0)).toBe(true);
      expect(rows.map((r) => r.ms)).toEqual([...rows.map((r) => r.ms)].sort((a, b) => b - a));
      meter.uninstall();
      insert.run('d');
      expect(callsOf(meter.snapshot(), 'INSERT INTO t (v) VALUES (?)')).toBe(3);
      db.close();
    } finally {
      meter.uninstall();
    }
    expect({ run: statementPrototype.run, get: statementPrototype.get, all: statementPrototype.all, exec: Database.prototype.exec }).toEqual(originals);
  });

  it('meterDifference keeps what ran between two snapshots, most time first', () => {
    const before: SqliteMeterRow[] = [
      { sql: 'COMMIT', calls: 2, ms: 0.5 },
      { sql: 'SELECT 1', calls: 4, ms: 0.1 },
    ];
    const after: SqliteMeterRow[] = [
      { sql: 'COMMIT', calls: 5, ms: 1.5 },
      { sql: 'SELECT 1', calls: 4, ms: 0.1 },
      { sql: 'INSERT', calls: 1, ms: 2 },
    ];
    expect(meterDifference(after, before)).toEqual([
      { sql: 'INSERT', calls: 1, ms: 2 },
      { sql: 'COMMIT', calls: 3, ms: 1 },
    ]);
  });

  it('a server child with TANDEM_SQLITE_METER appends its totals on SIGUSR2: a join shows its session insert and commit', async () => {
    const file = path.join(tempDir(), 'meter.jsonl');
    // No reply is asked for, so the provider is never called.
    const server = new ServerChild({ providerBaseURL: 'http://127.0.0.1:9/v1', env: { TANDEM_SQLITE_METER: file } });
    try {
      await server.start();
      await joinStudy(server.url, 'travel-planning', visitLinkParams('meter-test'), 20_000);
      process.kill(server.pid!, 'SIGUSR2');
      const deadline = Date.now() + 10_000;
      while (!(fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes('\n')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const rows = JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[0]!) as SqliteMeterRow[];
      expect(rows.find((r) => r.sql.startsWith('INSERT INTO sessions '))?.calls).toBe(1);
      expect(callsOf(rows, 'COMMIT')).toBeGreaterThanOrEqual(1);
    } finally {
      await server.dispose();
    }
  });
});
