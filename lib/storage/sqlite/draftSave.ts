/**
 * Store.saveDraft on SQLite: the checks and writes of the contract (../contract/draftSave.ts) run synchronously in
 * one BEGIN IMMEDIATE transaction, which holds the database's write lock from the first read.
 */
import { draftEventPayload, type DraftSave, type DraftSaveRefusal, type DraftSaveResult } from '../contract/draftSave';
import type { ArtifactsRepo, EventsRepo, SessionsRepo } from '../contract/store';
import type { Sync } from './sync';
import { sessionRefusal } from './sessionRefusal';

interface Repositories {
  sessions: Sync<SessionsRepo>;
  artifacts: Sync<ArtifactsRepo>;
  events: Sync<EventsRepo>;
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** Call inside a transaction that holds the write lock (see createSqliteStore). */
export function saveDraftSync(repos: Repositories, d: DraftSave): DraftSaveResult {
  const session = repos.sessions.get(d.sessionId);
  if (!session) return { outcome: 'not_found' };
  const stored = repos.artifacts.getDraft(d.sessionId);
  const storedVersion = stored?.version ?? 0;
  const fieldsJson = JSON.stringify(d.fields);
  const storedJson = stored ? JSON.stringify(stored.fields) : null;
  const version = storedVersion + 1;
  const record = !stored || d.now - stored.recordedAt >= d.eventIntervalMs;
  const change = bytes(fieldsJson) - (storedJson === null ? 0 : bytes(storedJson)) + (record ? bytes(draftEventPayload(fieldsJson, version)) : 0);
  const refuse = (reason: DraftSaveRefusal): DraftSaveResult => ({
    outcome: 'refused',
    reason,
    session,
    storedVersion,
    storedBytes: repos.sessions.storageBytes(d.sessionId),
    change,
  });
  // The order of the PostgreSQL function's checks (migration 032).
  const refusal = sessionRefusal(session, d.now, d.timeLimitMs, d.step);
  if (refusal) return refuse(refusal);
  if (stored && sameValues(stored.fields, d.fields)) return { outcome: 'unchanged', savedAt: stored.savedAt, version: storedVersion };
  if (d.baseVersion !== null && d.baseVersion !== storedVersion) return refuse('conflict');
  if (change > 0 && repos.sessions.storageBytes(d.sessionId) + change > d.budgetBytes) return refuse('storage_full');
  if (record) {
    const seq = repos.events.append(d.sessionId, 'artifact.draft_saved', { fields: d.fields, version }, d.now, d.clientTs);
    repos.artifacts.saveDraft({ sessionId: d.sessionId, fields: d.fields, eventSeq: seq, savedAt: d.now, version, recordedVersion: version, recordedAt: d.now });
  } else {
    repos.artifacts.saveDraft({ ...stored!, fields: d.fields, savedAt: d.now, version });
  }
  return { outcome: 'saved', savedAt: d.now, version, recorded: record };
}

/** The same text in every field (key order aside): what jsonb equality decides on PostgreSQL. */
function sameValues(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && a[k] === b[k]);
}
