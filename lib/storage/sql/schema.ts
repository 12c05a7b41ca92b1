/** The migrations' own bookkeeping (schema_migrations) and the store's row counts, the same on both engines. */
import { STORE_TABLES } from '../contract/tables';
import { both } from './engineSql';

export const SCHEMA_SQL = {
  appliedVersions: both('SELECT version FROM schema_migrations ORDER BY version'),
  recordMigration: both('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)'),
  /** 0 before the first migration. */
  schemaVersion: both('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations'),
  /** Every store table's row count in one statement (t, n), in STORE_TABLES order. */
  countRows: both(`${STORE_TABLES.map((t, i) => `SELECT ${i} AS i, '${t}' AS t, COUNT(*) AS n FROM ${t}`).join(' UNION ALL ')} ORDER BY i`),
} as const;
