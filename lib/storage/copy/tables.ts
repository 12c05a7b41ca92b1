/**
 * What db:copy copies: every table of the store contract (STORE_TABLES, parents before children), with
 * its columns and primary key. Both engines have the same columns (lib/storage/postgres/migrate.test.ts checks
 * it), so a row is the same list of values on either side: text as strings, integers and reals as numbers,
 * NULL as null. Schema bookkeeping (schema_migrations) and caches (the judge reply cache) are not copied:
 * the target is migrated by opening it, and a cache refills itself.
 */
import { STORE_TABLES, type StoreTable } from '../contract/store';

export interface TableSpec {
  name: StoreTable;
  /** Primary-key columns: the order rows are hashed in. */
  primaryKey: readonly string[];
  /** Identity columns (PostgreSQL sequences to move past the copied ids). */
  identity?: string;
}

const PRIMARY_KEYS: Record<StoreTable, readonly string[]> = {
  studies: ['id'],
  sessions: ['id'],
  identities: ['session_id'],
  participant_tokens: ['token_hash'],
  events: ['id'],
  messages: ['id'],
  artifact_drafts: ['session_id'],
  artifacts: ['session_id', 'version'],
  uploads: ['id'],
  survey_answers: ['session_id', 'item_id'],
  reply_progress: ['reply_id'],
  reply_progress_parts: ['reply_id', 'text_from'],
  judgements: ['id'],
  judge_quality: ['session_id'],
  annotations: ['session_id', 'turn'],
  admin_credentials: ['id'],
  admin_sessions: ['token_hash'],
  audit_log: ['id'],
  withdrawals: ['study_id', 'tombstone'],
  session_telemetry: ['session_id'],
  reply_reviews: ['reply_id'],
  preregistrations: ['study_id', 'version'],
  preregistration_deviations: ['id'],
  pseudonym_key: ['id'],
  study_groups: ['id'],
  lobby_entries: ['session_id'],
  group_members: ['group_id', 'seat'],
  group_events: ['id'],
  group_messages: ['id'],
  group_doc_updates: ['group_id', 'seq'],
  group_judgements: ['id'],
  group_judge_quality: ['group_id'],
};

const IDENTITY: Partial<Record<StoreTable, string>> = { events: 'id', judgements: 'id', audit_log: 'id', preregistration_deviations: 'id', group_events: 'id', group_judgements: 'id' };

/** In dependency order (a table's foreign keys point at tables earlier in the list). */
export const COPY_TABLES: readonly TableSpec[] = STORE_TABLES.map((name) => ({
  name,
  primaryKey: PRIMARY_KEYS[name],
  ...(IDENTITY[name] ? { identity: IDENTITY[name] } : {}),
}));

export type RowValue = string | number | null;
export type Row = RowValue[];
