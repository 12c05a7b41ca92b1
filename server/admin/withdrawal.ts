import { rmSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import type { Store } from '../../lib/storage';
import type { WithdrawalResult } from '../../common/admin';
import { openPseudonymKey, participantTombstone } from '../../lib/pseudonym';
import type { LiveSessions } from '../socket/liveSessions';

/**
 * Withdraws a participant from a study: deletes every session they had (all science rows cascade from
 * sessions; uploaded files are removed from disk), records a tombstone — a keyed HMAC of the study and
 * platform id, no personal data — so later exports leave out any session that reappears under that id,
 * and writes an audit entry. The platform id itself is never stored. On a running server (`live`) the
 * sessions' tokens are revoked, their sockets disconnected and their replies aborted before the delete.
 */

export type { WithdrawalResult };

export async function withdrawParticipant(
  store: Store,
  input: { dataDir: string; studyId: string; platformUserId: string; actor: string; now?: number; live?: LiveSessions },
): Promise<WithdrawalResult> {
  const platformUserId = input.platformUserId.trim();
  if (platformUserId.length === 0) throw new Error('the platform id is empty');
  if (!(await store.studies.get(input.studyId))) throw new Error(`no study "${input.studyId}"`);
  const now = input.now ?? Date.now();
  const key = await openPseudonymKey(store, input.dataDir, now);
  const tombstone = participantTombstone(key, input.studyId, platformUserId);
  // Live activity stops first: the tokens are revoked (no reconnect, no new request), the sockets are
  // disconnected and a reply in flight is aborted and stored, so nothing writes to a session once it is
  // deleted (before, a reply finishing after the delete hit foreign-key errors and kept streaming).
  const live = await store.withdrawals.findSessionIds(input.studyId, platformUserId);
  for (const id of live) await store.tokens.deleteForSession(id);
  await input.live?.stop(live);
  const { deleted, sessionIds } = await store.transaction(async (tx) => {
    const ids = await tx.withdrawals.findSessionIds(input.studyId, platformUserId);
    const n = await tx.withdrawals.deleteSessions(ids, now);
    await tx.withdrawals.recordTombstone({ studyId: input.studyId, tombstone, withdrawnAt: now, deletedSessions: n, actor: input.actor });
    await tx.audit.append({
      at: now,
      actor: input.actor,
      action: 'withdrawal',
      studyId: input.studyId,
      details: { deletedSessions: n, reference: tombstone.slice(0, 12) },
    });
    return { deleted: n, sessionIds: ids };
  });

  // Files go after the commit: a crash in between leaves orphan files (harmless, no rows point at them),
  // never rows pointing at missing files.
  const root = resolve(input.dataDir);
  let deletedFiles = 0;
  for (const id of sessionIds) {
    const dir = resolve(root, 'uploads', id);
    if (!dir.startsWith(join(root, 'uploads') + sep)) continue;
    try {
      rmSync(dir, { recursive: true, force: true });
      deletedFiles++;
    } catch {
      // best effort; the rows are already gone
    }
  }
  return { deletedSessions: deleted, deletedFiles, purgedCachedReplies: await purgeJudgeCache(store, sessionIds), reference: tombstone.slice(0, 12) };
}

/** Cached judge/annotator replies hold the prompts built from the person's artifacts and dialogue: drop them. */
async function purgeJudgeCache(store: Store, sessionIds: readonly string[]): Promise<number> {
  if (sessionIds.length === 0) return 0;
  const cache = await store.openReplyCache();
  try {
    return await cache.forgetSessions(sessionIds);
  } finally {
    await cache.close();
  }
}
