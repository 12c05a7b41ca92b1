/** The pseudonym key's fingerprint row (migration 027; contract/pseudonymKey.ts) on both engines. */
import { both } from './engineSql';

export const PSEUDONYM_KEY_SQL = {
  fingerprint: both('SELECT fingerprint FROM pseudonym_key WHERE id = 1'),
  /**
   * Parameters: fingerprint, created_at. A racing first use inserts nothing (ON CONFLICT waits for the other
   * transaction's commit on PostgreSQL), and the `fingerprint` read after answers with the row that won.
   */
  recordIfAbsent: both('INSERT INTO pseudonym_key (id, fingerprint, created_at) VALUES (1, ?, ?) ON CONFLICT (id) DO NOTHING'),
} as const;
