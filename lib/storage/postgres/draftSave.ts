/**
 * Store.saveDraft on PostgreSQL: one call of tandem_save_draft (migration 032), so an autosave holds a pooled
 * connection for one round trip instead of a transaction of seven.
 */
import type { DraftSave, DraftSaveRefusal, DraftSaveResult } from '../contract/draftSave';
import type { Runner } from './connection';
import { toSessionRow, type SessionRaw } from '../rows/sessions';

interface Answer {
  outcome: DraftSaveResult['outcome'];
  reason?: DraftSaveRefusal;
  session?: SessionRaw;
  savedAt?: number;
  version?: number;
  recorded?: boolean;
  storedVersion?: number;
  storedBytes?: number;
  change?: number;
}

const CALL = 'SELECT tandem_save_draft($1, $2, $3, $4, $5, $6, $7, $8, $9) AS answer';

export async function saveDraft(db: Runner, d: DraftSave): Promise<DraftSaveResult> {
  const row = await db.one<{ answer: string }>(CALL, [
    d.sessionId,
    JSON.stringify(d.fields),
    d.baseVersion,
    d.now,
    d.clientTs,
    d.step,
    d.timeLimitMs,
    d.budgetBytes,
    d.eventIntervalMs,
  ]);
  const a = JSON.parse(row!.answer) as Answer;
  switch (a.outcome) {
    case 'not_found':
      return { outcome: 'not_found' };
    case 'unchanged':
      return { outcome: 'unchanged', savedAt: Number(a.savedAt), version: a.version! };
    case 'saved':
      return { outcome: 'saved', savedAt: Number(a.savedAt), version: a.version!, recorded: a.recorded! };
    case 'refused':
      return {
        outcome: 'refused',
        reason: a.reason!,
        session: toSessionRow(a.session!),
        storedVersion: a.storedVersion!,
        storedBytes: Number(a.storedBytes),
        change: Number(a.change),
      };
  }
}
