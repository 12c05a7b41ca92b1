import type { MessageRow, Store, UnfinishedReply } from '../../lib/storage';
import { countTokens } from '../../common/tokens';
import type { LoadedConfig } from '../../lib/studyFiles/studyConfig';
import { mayTakeOver, type Coordination } from '../cluster/coordination';
import { assistantMessageRow } from './replyStore';
import { OPEN_REVIEW_STATES } from '../../lib/storage';

/**
 * Crash recovery, cluster-safe. A reply whose node died mid-stream has a `reply.started` event and a lease
 * (reply_leases) but no stored outcome. It is stored as interrupted (with its `reply.finished` event, in one
 * transaction that also deletes its lease) so the trajectory is complete and the participant sees a failed
 * reply with Retry — but only when its lease may be taken over (cluster/coordination.ts mayTakeOver: the
 * owner stopped heartbeating for a lease expiry, or it is this node's previous incarnation). A node that
 * restarts therefore never touches another live node's reply.
 * The stored text is the reply's last crash checkpoint (reply_progress, written while it streamed: at most
 * ~625 ms or a few hundred characters behind what the participant saw), or empty when none was written.
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
 * Makes this node the owner of a reply's lease before it resumes the reply (one waiting for a researcher,
 * server/wizard/recoverReviews.ts): kept when this node holds it, taken when it may be taken over (this node's
 * previous incarnation, or an owner that stopped heartbeating), created when there is none and the session has
 * no other reply's lease. False when another live node holds it: that node waits for the reply, not this one.
 * Without this, the resumed reply's first heartbeat found the lease held by the dead process and dropped it.
 */
export async function adoptReplyLease(
  store: Store,
  coordination: Coordination,
  r: { sessionId: string; replyId: string; replyTo: string },
  now: number,
): Promise<boolean> {
  const me = coordination.owner;
  return store.transaction(async (tx) => {
    const lease = await tx.replyLeases.getForUpdate(r.replyId);
    if (!lease) return tx.replyLeases.acquire({ sessionId: r.sessionId, replyId: r.replyId, replyTo: r.replyTo, startedAt: now, owner: me });
    if (lease.ownerNode === me.node && lease.ownerIncarnation === me.incarnation) return true;
    if (!mayTakeOver(lease, coordination, now)) return false;
    return tx.replyLeases.transfer(r.replyId, me, now);
  });
}

/**
 * Periodic takeover: stores as interrupted every reply whose lease may be taken over (except those
 * `runningHere` names, and those waiting for a researcher, which `resumeReview` takes over), and hands each stored message to `onStored` (the caller pushes it, so the participant sees Retry without waiting for a restart).
 * Reads only the small lease table. Returns how many replies it stored.
 */
export async function takeOverDeadReplies(
  store: Store,
  config: LoadedConfig,
  coordination: Coordination,
  now: number,
  onStored: (message: MessageRow) => void,
  runningHere: (replyId: string) => boolean = () => false,
  /** A dead node's reply that waits for a researcher: resumed here rather than interrupted (server/wizard/). */
  resumeReview: (replyId: string) => Promise<boolean> = async () => false,
): Promise<number> {
  let stored = 0;
  for (const l of await store.replyLeases.listTakeoverCandidates(now - coordination.leaseTtlMs, coordination.owner)) {
    // This process streams it, so it is alive whatever its heartbeat says (a stalled event loop, a clock jump).
    if (runningHere(l.replyId)) continue;
    const review = await store.reviews.get(l.replyId);
    if (review && OPEN_REVIEW_STATES.includes(review.state)) {
      await resumeReview(l.replyId);
      continue;
    }
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
    // A reply waiting for a researcher (server/wizard/) is not interrupted: its wait is resumed (with its lease) by
    // the node that restarts (recoverReviews) or, for a dead node's, by the periodic takeover (resumeReview).
    const review = await tx.reviews.get(r.replyId);
    if (review && OPEN_REVIEW_STATES.includes(review.state)) return null;
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
