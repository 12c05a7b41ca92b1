/**
 * The store contract of an autosave (Store.saveDraft): the checks and writes of a draft save as one call, so
 * PostgreSQL answers it in one round trip (tandem_save_draft, migration 032) and SQLite in one synchronous
 * transaction. The guarantees are those of the transaction it replaces (BEGIN, session lock, draft read, budget
 * read, event, draft write, COMMIT):
 *   - the session row is locked first (PostgreSQL: FOR NO KEY UPDATE, as tandem_append_event), so every check is
 *     made on the row as it is when the write happens;
 *   - the session must be active, at `step` and not past its deadline (consentedAt + timeLimitMs);
 *   - a save whose fields equal the stored draft's writes nothing and answers the stored version ('unchanged'),
 *     whatever `baseVersion` says (a resend, or two tabs with the same text);
 *   - a `baseVersion` other than the stored draft's version (0 when none) is a stale tab: 'conflict';
 *   - the save may not take the session past its storage budget: the change is the new fields' JSON bytes minus
 *     the stored draft's, plus the event's when one is recorded; only a growing save is refused;
 *   - the trajectory gets an `artifact.draft_saved` event ({"fields", "version"}) for the first save and then at
 *     most once per `eventIntervalMs`; the draft row remembers which version its last event recorded.
 */
import type { Step } from '../../../common/session';
import type { SessionRow } from './sessions';
import type { FieldValues } from './submissions';

export interface DraftSave {
  sessionId: string;
  fields: FieldValues;
  /** The version the client's text was based on; null when the client did not say. */
  baseVersion: number | null;
  now: number;
  clientTs: number | null;
  step: Step;
  timeLimitMs: number;
  budgetBytes: number;
  eventIntervalMs: number;
}

export type DraftSaveRefusal = 'ended' | 'overdue' | 'wrong_step' | 'conflict' | 'storage_full';

export type DraftSaveResult =
  /** Stored now as `version` (`recorded`: with its trajectory event), or already stored ('unchanged', nothing written). */
  | { outcome: 'saved'; savedAt: number; version: number; recorded: boolean }
  | { outcome: 'unchanged'; savedAt: number; version: number }
  | { outcome: 'not_found' }
  /** `storedVersion`: the draft's version (0: none); `storedBytes` the session's storage in use; `change` the save's growth. */
  | { outcome: 'refused'; reason: DraftSaveRefusal; session: SessionRow; storedVersion: number; storedBytes: number; change: number };

/** The `artifact.draft_saved` event's payload as stored, byte for byte the same on both engines. */
export const draftEventPayload = (fieldsJson: string, version: number): string => `{"fields":${fieldsJson},"version":${version}}`;
