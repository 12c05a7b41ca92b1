/**
 * Rows read through Statements (raw arrays + a literal per statement, rowReader.ts) are the objects
 * better-sqlite3 itself builds: same keys in the same order, same values, for every shape a query can have.
 */
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Statements } from './statements';

const dbs: Database.Database[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
});

function fixture(): { db: Database.Database; q: Statements } {
  const db = new Database(':memory:');
  dbs.push(db);
  db.exec(`
    CREATE TABLE a (id TEXT PRIMARY KEY, n INTEGER, x REAL, t TEXT, b BLOB, j TEXT);
    CREATE TABLE c (id TEXT PRIMARY KEY, a_id TEXT, n INTEGER);
    INSERT INTO a VALUES ('a1', 1, 1.5, 'héllo "quoted"', x'00ff', '{"k":[1,2]}'), ('a2', NULL, NULL, NULL, NULL, NULL);
    INSERT INTO c VALUES ('c1', 'a1', 10), ('c2', 'a1', 20);
  `);
  return { db, q: new Statements(db) };
}

/** What better-sqlite3 answers for the same SQL in its default (object) mode. */
const asObjects = (db: Database.Database, sql: string, ...params: unknown[]) => db.prepare(sql).all(...params);

describe('Statements reads rows as better-sqlite3 objects would be', () => {
  const shapes: [string, string, unknown[]][] = [
    ['every column, nulls and a blob', 'SELECT * FROM a ORDER BY id', []],
    ['a join whose columns share names (the later one wins)', 'SELECT a.*, c.* FROM a JOIN c ON c.a_id = a.id ORDER BY c.id', []],
    ['expressions and aliases, quotes in a name', `SELECT n + 1, COUNT(*) AS "the ""count""", 'x' AS "__proto__x" FROM a GROUP BY id ORDER BY id`, []],
    ['a parameter', 'SELECT id, t FROM a WHERE id = ?', ['a1']],
    ['no row', 'SELECT * FROM a WHERE id = ?', ['none']],
  ];
  for (const [name, sql, params] of shapes) {
    it(name, () => {
      const { db, q } = fixture();
      const expected = asObjects(db, sql, ...params);
      const rows = q.rows<Record<string, unknown>>({ sqlite: sql }, ...params);
      expect(rows).toEqual(expected);
      rows.forEach((r, i) => expect(Object.keys(r)).toEqual(Object.keys(expected[i] as object)));
      expect(q.one({ sqlite: sql }, ...params)).toEqual(expected[0]);
    });
  }

  it('UPDATE … RETURNING through one()', () => {
    const { db, q } = fixture();
    expect(q.one({ sqlite: 'UPDATE a SET n = n + 1 WHERE id = ? RETURNING *' }, 'a1')).toEqual({ id: 'a1', n: 2, x: 1.5, t: 'héllo "quoted"', b: Buffer.from([0, 255]), j: '{"k":[1,2]}' });
    expect((db.prepare('SELECT n FROM a WHERE id = ?').get('a1') as { n: number }).n).toBe(2);
  });

  it('a column named __proto__ is a property, not the prototype', () => {
    const { q } = fixture();
    const row = q.one<Record<string, unknown>>({ sqlite: `SELECT 'p' AS "__proto__", 1 AS n` })!;
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe('p');
    expect(row.n).toBe(1);
  });

  it('a cached SELECT * follows a column added after it was first read', () => {
    const { db, q } = fixture();
    const sql = { sqlite: 'SELECT * FROM c WHERE id = ?' };
    expect(q.one(sql, 'c1')).toEqual({ id: 'c1', a_id: 'a1', n: 10 });
    db.exec(`ALTER TABLE c ADD COLUMN note TEXT NOT NULL DEFAULT 'none'`);
    expect(q.one(sql, 'c1')).toEqual({ id: 'c1', a_id: 'a1', n: 10, note: 'none' });
  });

  it('run() still counts changes, and a statement without rows still refuses one()', () => {
    const { q } = fixture();
    expect(q.run({ sqlite: 'UPDATE c SET n = n + 1 WHERE a_id = ?' }, 'a1')).toBe(2);
    expect(() => q.one({ sqlite: 'DELETE FROM c WHERE id = ?' }, 'c1')).toThrow(/does not return data/);
  });
});
