import type { MessageRow, Store, UnfinishedReply } from '../db/store';
import { countTokens } from '../../common/tokens';
import type { LoadedConfig } from './config';
import { mayTakeOver, type Coordination } from '../cluster/coordination';
import { assistantMessageRow } from './replyStore';

/**
 * Crash recovery, cluster-safe. A reply whose node died mid-stream has a `reply.started` event and a lease
 * (reply_leases) but no stored outcome. It is stored as interrupted (with its `reply.finished` event, in one
 * transaction that also deletes its lease) so the trajectory is complete and the participant sees a failed
 * reply with Retry — but only when its lease may be taken over (cluster/coordination.ts mayTakeOver: the
 * owner stopped heartbeating for a lease expiry, or it is this node's previous incarnation). A node that
 * restarts therefore never touches another live node's reply.
 * The stored text is the reply's last crash checkpoint (reply_progress, written while it streamed: at most
 * ~500 ms or a few hundred characters behind what the participant saw), or empty when none was written.
 * ttftMs and durationMs come from the checkpoint too (null without one: unknown).
 * Stored once even when two nodes race: each takeover locks the session row, then the lease row, and
 * re-checks inside its transaction.
 */

/**
 * Start-up recovery: the takeover below, plus replies left without any lease (written before leases existed,
 * migration 021). Returns how many replies it stored as interrupted.
 */
export async function recoverInterruptedReplies(store: Store, config: LoadedConfig, coordination: Coordination, now: number): Promise<number> {
  // Unfinished replies are listed BEFORE the leases: a reply started after the first list is not in it, and one
  // started before it committed its lease with its reply.started, so it is in the second list.
  const unfinished = await store.events.listUnfinishedReplies();
  const leases = new Map((await store.replyLeases.list()).map((l) => [l.replyId, l]));
  let stored = 0;
  for (const r of unfinished) {
    const lease = leases.get(r.replyId);
    if (lease && !mayTakeOver(lease, coordination, now)) continue;
    if (await storeInterrupted(store, config, coordination, r, lease !== undefined, now)) stored++;
  }
  // Checkpoints of replies that were stored after all (a crash between the two writes cannot happen, as the
  // store deletes them in the same transaction; this keeps the table clean whatever older code left behind).
  await store.replyProgress.deleteStored();
  return stored;
}

/**
 * Periodic takeover: stores as interrupted every reply whose lease may be taken over (except those
 * `runningHere` names), and hands each stored message to `onStored` (the caller pushes it, so the participant sees Retry without waiting for a restart).
 * Reads only the small lease table. Returns how many replies it stored.
 */
export async function takeOverDeadReplies(
  store: Store,
  config: LoadedConfig,
  coordination: Coordination,
  now: number,
  onStored: (message: MessageRow) => void,
  runningHere: (replyId: string) => boolean = () => false,
): Promise<number> {
  let stored = 0;
  for (const l of await store.replyLeases.listTakeoverCandidates(now - coordination.leaseTtlMs, coordination.owner)) {
    // This process streams it, so it is alive whatever its heartbeat says (a stalled event loop, a clock jump).
    if (runningHere(l.replyId)) continue;
    const r: UnfinishedReply = { sessionId: l.sessionId, replyId: l.replyId, replyTo: l.replyTo, startedAt: l.startedAt };
    const message = await storeInterrupted(store, config, coordination, r, true, now);
    if (message) {
      stored++;
      onStored(message);
    }
  }
  return stored;
}

/**
 * Stores one reply as interrupted, or nothing when (re-checked under the locks) it was stored meanwhile, its
 * lease was refreshed or taken by another node, or its session was withdrawn. `leased`: whether the reply had
 * a lease when it was chosen (an unleased one must still have none).
 */
async function storeInterrupted(
  store: Store,
  config: LoadedConfig,
  coordination: Coordination,
  r: UnfinishedReply,
  leased: boolean,
  now: number,
): Promise<MessageRow | null> {
  return store.transaction(async (tx) => {
    // The session row lock orders this against another node's takeover and the owner's own storeReply.
    const session = await tx.sessions.getForUpdate(r.sessionId);
    if (!session) return null;
    const lease = await tx.replyLeases.getForUpdate(r.replyId);
    if (leased ? !lease || !mayTakeOver(lease, coordination, now) : lease !== undefined) return null;
    if (await tx.messages.get(r.replyId)) {
      await tx.replyLeases.release(r.replyId);
      return null;
    }
    // A reply waiting for a researcher (server/wizard/) is not interrupted: recoverReviews resumes its wait on
    // the node that restarts (on a cluster, a dead node's waiting reviews wait for that node: docs/wizard.md).
    const review = await tx.reviews.get(r.replyId);
    if (review && (review.state === 'waiting' || review.state === 'claimed')) return null;
    const condition = config.studies.get(session.studyId)?.conditions.find((c) => c.id === session.conditionId);
    const checkpoint = await tx.replyProgress.get(r.replyId);
    const text = checkpoint?.text ?? '';
    const tokens = countTokens(text);
    const error = { kind: 'stream', message: 'the server stopped during the reply', retryable: true };
    const provenance = {
      provider: checkpoint?.provider ?? null,
      providerUrl: null,
      model: null,
      requestedModel: condition?.model ?? null,
      params: condition ? { temperature: condition.temperature, max_tokens: condition.max_tokens } : null,
      usage: null,
      ttftMs: checkpoint ? checkpoint.firstDeltaAt - r.startedAt : null,
      durationMs: checkpoint ? checkpoint.updatedAt - r.startedAt : null,
      finishReason: 'error',
      interrupted: true,
      attempts: null,
      error,
    };
    const seq = await tx.events.append(
      r.sessionId,
      'reply.finished',
      {
        replyId: r.replyId,
        replyTo: r.replyTo,
        status: 'interrupted',
        text,
        tokens,
        ...provenance,
        recovered: true,
        checkpointedAt: checkpoint?.updatedAt ?? null,
      },
      now,
      null,
    );
    const message = assistantMessageRow({ id: r.replyId, sessionId: r.sessionId, eventSeq: seq, text, replyTo: r.replyTo, status: 'interrupted', tokens, createdAt: now }, provenance);
    await tx.messages.insert(message);
    await tx.replyProgress.delete(r.replyId);
    await tx.replyLeases.release(r.replyId);
    return message;
  });
}
