/**
 * The schema's table names. Part of the storage contract: lib/storage/contract/store.ts re-exports everything
 * here, and code imports it from there.
 */

/** Every table of the schema (both engines have the same tables and columns). */
export const STORE_TABLES = [
  'studies',
  'sessions',
  'identities',
  'participant_tokens',
  'events',
  'messages',
  'artifact_drafts',
  'artifacts',
  'uploads',
  'survey_answers',
  'reply_progress',
  // A checkpoint's later text (migration 034), after its reply_progress row.
  'reply_progress_parts',
  'judgements',
  'judge_quality',
  'annotations',
  'admin_credentials',
  'admin_sessions',
  'audit_log',
  'withdrawals',
  'session_telemetry',
  'reply_reviews',
  'preregistrations',
  'preregistration_deviations',
  'pseudonym_key',
  // Group sessions (migration 028), parents first: a lobby entry names its group, seats, events, messages and
  // document updates belong to one.
  'study_groups',
  'lobby_entries',
  'group_members',
  'group_events',
  'group_messages',
  'group_doc_updates',
  // A group's document judged once as the group's artifact (migration 031).
  'group_judgements',
  'group_judge_quality',
] as const;

export type StoreTable = (typeof STORE_TABLES)[number];
