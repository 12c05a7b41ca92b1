/**
 * The schema both engines end at, described the same way, and where the two differ beyond what the engines
 * legitimately do differently (the mapping below). Used by the migration twin test (postgres/migrate.test.ts); it reads
 * only catalogs (SQLite's sqlite_master and pragmas, PostgreSQL's information_schema and pg_catalog).
 *
 * Compared per table: columns (name, type, default, NOT NULL, primary key), CHECK constraints, UNIQUE
 * constraints, foreign keys, indexes created by the migrations, and triggers.
 */
import type Database from 'better-sqlite3';
import type pg from 'pg';

/**
 * SQLite's declared type → the PostgreSQL types that twin it. INTEGER is BIGINT where a value may pass 2^31
 * (ms timestamps, identities, byte counts) and INTEGER (int4) for counts, flags, sequence numbers and versions;
 * the pool parses both to JS numbers. JSON stays TEXT on both (not JSONB), so an export is byte-identical.
 */
const TYPE_TWINS: Record<string, readonly string[]> = {
  INTEGER: ['bigint', 'integer'],
  TEXT: ['text'],
  REAL: ['double precision'],
};

/**
 * Columns whose type differs on purpose. reply_leases.stop_requested is a BOOLEAN on PostgreSQL and 0/1 on
 * SQLite: the lease queries are named variants ('boolean', sql/coordination.ts) and the repositories
 * map both to a boolean.
 */
const COLUMN_TYPE_EXCEPTIONS: Record<string, { sqlite: string; postgres: string; sqliteDefault?: string; postgresDefault?: string }> = {
  'reply_leases.stop_requested': { sqlite: 'INTEGER', postgres: 'boolean', sqliteDefault: '0', postgresDefault: 'false' },
};

/**
 * Tables on one engine only. The judge/annotator reply cache is a file of its own on SQLite
 * (sqlite/replyCache.ts creates its tables there) and migration 013's tables on PostgreSQL.
 */
export const POSTGRES_ONLY_TABLES: readonly string[] = ['reply_cache', 'reply_cache_sessions'];

export interface ColumnShape {
  name: string;
  type: string;
  default: string | null;
  notNull: boolean;
  pk: boolean;
}

export interface TableShape {
  columns: ColumnShape[];
  checks: string[];
  uniques: string[];
  foreignKeys: string[];
  indexes: string[];
  triggers: string[];
}

/**
 * One text for an SQL expression or definition on either engine: PostgreSQL's deparsed form
 * (`(x = ANY (ARRAY['a'::text, 'b'::text]))`, `public.t USING btree (…)`) and SQLite's stored text
 * (`x IN ('a', 'b')`, `x BETWEEN 1 AND 5`) come out alike: lowercase, no casts, IN lists, BETWEEN expanded,
 * no schema prefix or access method, no parentheses or blanks.
 */
export function normaliseSql(text: string): string {
  return text
    .toLowerCase()
    .replace(/::[a-z_]+( [a-z_]+)?(\[\])?/g, '')
    .replace(/=\s*any\s*\(\s*array\[([^\]]*)\]\s*\)/g, ' in ($1)')
    .replace(/(\w+) between (\S+) and (\S+)/g, '$1 >= $2 and $1 <= $3')
    .replace(/\bpublic\./g, '')
    .replace(/\busing btree\b/g, '')
    .replace(/"/g, '')
    .replace(/[()\s]/g, '');
}

/** Balanced-parenthesis bodies following `CHECK` in a CREATE TABLE text. */
function checksOf(createTable: string): string[] {
  const out: string[] = [];
  for (const m of createTable.matchAll(/\bCHECK\s*\(/gi)) {
    let depth = 0;
    const start = m.index + m[0].length - 1;
    for (let i = start; i < createTable.length; i++) {
      if (createTable[i] === '(') depth++;
      else if (createTable[i] === ')' && --depth === 0) {
        out.push(createTable.slice(start, i + 1));
        break;
      }
    }
  }
  return out;
}

const sorted = (xs: string[]): string[] => [...xs].sort();

export function sqliteSchema(db: Database.Database): Map<string, TableShape> {
  const tables = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string; sql: string }[];
  const out = new Map<string, TableShape>();
  for (const t of tables) {
    const columns = (db.prepare('SELECT name, type, dflt_value, "notnull" AS nn, pk FROM pragma_table_info(?) ORDER BY cid').all(t.name) as {
      name: string; type: string; dflt_value: string | null; nn: number; pk: number;
    }[]).map((c) => ({ name: c.name, type: c.type, default: c.dflt_value === null ? null : normaliseSql(c.dflt_value), notNull: c.nn === 1 || c.pk > 0, pk: c.pk > 0 }));
    const indexList = db.prepare('SELECT name, "unique" AS u, origin FROM pragma_index_list(?)').all(t.name) as { name: string; u: number; origin: string }[];
    const uniques = indexList
      .filter((i) => i.origin === 'u')
      .map((i) => (db.prepare('SELECT name FROM pragma_index_info(?) ORDER BY seqno').all(i.name) as { name: string }[]).map((c) => c.name).join(','));
    const foreignKeys = (db.prepare('SELECT "from" AS f, "table" AS t, "to" AS c, on_delete AS d FROM pragma_foreign_key_list(?) ORDER BY id, seq').all(t.name) as {
      f: string; t: string; c: string; d: string;
    }[]).map((k) => `${k.f}->${k.t}.${k.c} on delete ${k.d.toLowerCase()}`);
    const indexes = (db.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL").all(t.name) as { sql: string }[]).map((i) =>
      normaliseSql(i.sql),
    );
    const triggers = (db.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?").all(t.name) as { sql: string }[]).map((r) => {
      const m = /CREATE TRIGGER (\w+) (BEFORE|AFTER|INSTEAD OF) (INSERT|UPDATE|DELETE)/i.exec(r.sql);
      return m ? `${m[1]} ${m[2]!.toLowerCase()} ${m[3]!.toLowerCase()}` : r.sql;
    });
    out.set(t.name, {
      columns,
      checks: sorted(checksOf(t.sql).map(normaliseSql)),
      uniques: sorted(uniques),
      foreignKeys: sorted(foreignKeys),
      indexes: sorted(indexes),
      triggers: sorted(triggers),
    });
  }
  return out;
}

export async function postgresSchema(pool: pg.Pool): Promise<Map<string, TableShape>> {
  const q = async <T extends pg.QueryResultRow>(sql: string) => (await pool.query<T>(sql)).rows;
  const columns = await q<{ t: string; name: string; type: string; dflt: string | null; nullable: string; pk: boolean }>(
    `SELECT c.table_name AS t, c.column_name AS name, c.data_type AS type, c.column_default AS dflt, c.is_nullable AS nullable,
       EXISTS (SELECT 1 FROM information_schema.key_column_usage k JOIN information_schema.table_constraints tc
                 ON tc.constraint_name = k.constraint_name AND tc.table_name = k.table_name AND tc.table_schema = k.table_schema
               WHERE tc.constraint_type = 'PRIMARY KEY' AND k.table_schema = c.table_schema AND k.table_name = c.table_name AND k.column_name = c.column_name) AS pk
     FROM information_schema.columns c JOIN information_schema.tables tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
     WHERE c.table_schema = current_schema() AND tb.table_type = 'BASE TABLE' ORDER BY c.table_name, c.ordinal_position`,
  );
  const constraints = await q<{ t: string; kind: string; def: string }>(
    `SELECT conrelid::regclass::text AS t, contype AS kind, pg_get_constraintdef(oid) AS def FROM pg_constraint
      WHERE connamespace = current_schema()::regnamespace AND contype IN ('c', 'u', 'f')`,
  );
  // Indexes the migrations created (not those backing a primary key or UNIQUE constraint).
  const indexes = await q<{ t: string; def: string }>(
    `SELECT i.tablename AS t, i.indexdef AS def FROM pg_indexes i
      WHERE i.schemaname = current_schema()
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)`,
  );
  const triggers = await q<{ t: string; name: string; timing: string; event: string }>(
    `SELECT event_object_table AS t, trigger_name AS name, action_timing AS timing, event_manipulation AS event
       FROM information_schema.triggers WHERE trigger_schema = current_schema()`,
  );
  const out = new Map<string, TableShape>();
  const table = (name: string): TableShape => {
    let t = out.get(name);
    if (!t) out.set(name, (t = { columns: [], checks: [], uniques: [], foreignKeys: [], indexes: [], triggers: [] }));
    return t;
  };
  for (const c of columns) {
    // An identity column's generator is its own (SQLite's INTEGER PRIMARY KEY numbers rows itself): no default.
    const dflt = c.dflt === null || /^nextval\(/.test(c.dflt) ? null : normaliseSql(c.dflt);
    table(c.t).columns.push({ name: c.name, type: c.type, default: dflt, notNull: c.nullable === 'NO', pk: c.pk });
  }
  for (const c of constraints) {
    if (c.kind === 'c') table(c.t).checks.push(normaliseSql(c.def.replace(/^CHECK\s*/i, '')));
    if (c.kind === 'u') table(c.t).uniques.push(/UNIQUE \((.*)\)/.exec(c.def)![1]!.replace(/\s/g, ''));
    if (c.kind === 'f') {
      // A composite key is one entry per column pair, as SQLite's pragma_foreign_key_list lists it.
      const m = /FOREIGN KEY \(([^)]+)\) REFERENCES (\w+)\(([^)]+)\)(?: ON DELETE (CASCADE|SET NULL|RESTRICT|SET DEFAULT))?/.exec(c.def)!;
      const from = m[1]!.split(',').map((x) => x.trim());
      const to = m[3]!.split(',').map((x) => x.trim());
      from.forEach((f, k) => table(c.t).foreignKeys.push(`${f}->${m[2]}.${to[k]} on delete ${(m[4] ?? 'no action').toLowerCase()}`));
    }
  }
  for (const i of indexes) table(i.t).indexes.push(normaliseSql(i.def));
  for (const r of triggers) table(r.t).triggers.push(`${r.name} ${r.timing.toLowerCase()} ${r.event.toLowerCase()}`);
  for (const t of out.values()) {
    t.checks.sort();
    t.uniques.sort();
    t.foreignKeys.sort();
    t.indexes.sort();
    t.triggers.sort();
  }
  return out;
}

/** Every difference between the two schemas that the mapping above does not explain, one line each. */
export function schemaTwinProblems(sqlite: Map<string, TableShape>, postgres: Map<string, TableShape>): string[] {
  const problems: string[] = [];
  for (const name of postgres.keys()) {
    if (!sqlite.has(name) && !POSTGRES_ONLY_TABLES.includes(name)) problems.push(`${name}: a table on PostgreSQL only`);
  }
  for (const [name, s] of sqlite) {
    const p = postgres.get(name);
    if (!p) {
      problems.push(`${name}: a table on SQLite only`);
      continue;
    }
    const pColumns = new Map(p.columns.map((c) => [c.name, c]));
    for (const sc of s.columns) {
      const pc = pColumns.get(sc.name);
      const where = `${name}.${sc.name}`;
      if (!pc) {
        problems.push(`${where}: a column on SQLite only`);
        continue;
      }
      pColumns.delete(sc.name);
      const exception = COLUMN_TYPE_EXCEPTIONS[where];
      if (exception) {
        if (sc.type !== exception.sqlite || pc.type !== exception.postgres) problems.push(`${where}: type ${sc.type} vs ${pc.type}, expected ${exception.sqlite} vs ${exception.postgres}`);
      } else if (!(TYPE_TWINS[sc.type] ?? []).includes(pc.type)) {
        problems.push(`${where}: type ${sc.type} on SQLite, ${pc.type} on PostgreSQL`);
      }
      // A millisecond timestamp passes int4 after 24 days of the epoch: every *_at column is BIGINT.
      if (/_at$/.test(sc.name) && pc.type !== 'bigint') problems.push(`${where}: a timestamp as ${pc.type} on PostgreSQL (BIGINT needed)`);
      const sameDefault = exception?.sqliteDefault !== undefined ? sc.default === exception.sqliteDefault && pc.default === exception.postgresDefault : sc.default === pc.default;
      if (!sameDefault) problems.push(`${where}: default ${sc.default ?? 'none'} on SQLite, ${pc.default ?? 'none'} on PostgreSQL`);
      if (sc.notNull !== pc.notNull) problems.push(`${where}: ${sc.notNull ? 'NOT NULL' : 'nullable'} on SQLite, ${pc.notNull ? 'NOT NULL' : 'nullable'} on PostgreSQL`);
      if (sc.pk !== pc.pk) problems.push(`${where}: ${sc.pk ? '' : 'not '}in the primary key on SQLite, ${pc.pk ? '' : 'not '}on PostgreSQL`);
    }
    for (const extra of pColumns.keys()) problems.push(`${name}.${extra}: a column on PostgreSQL only`);
    if (s.columns.map((c) => c.name).join() !== p.columns.map((c) => c.name).join() && pColumns.size === 0) {
      problems.push(`${name}: columns in another order (${s.columns.map((c) => c.name).join(', ')} vs ${p.columns.map((c) => c.name).join(', ')})`);
    }
    for (const kind of ['checks', 'uniques', 'foreignKeys', 'indexes', 'triggers'] as const) {
      const only = (a: string[], b: string[]) => a.filter((x) => !b.includes(x));
      for (const x of only(s[kind], p[kind])) problems.push(`${name}: ${kind} ${x} on SQLite only`);
      for (const x of only(p[kind], s[kind])) problems.push(`${name}: ${kind} ${x} on PostgreSQL only`);
    }
  }
  return problems;
}
