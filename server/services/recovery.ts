import type { Store } from '../db/store';
import { countTokens } from '../../common/tokens';
import type { LoadedConfig } from './config';

/**
 * Start-up crash recovery: a reply that was streaming when the process died has a `reply.started`
 * event but no stored outcome. Each is stored as interrupted (with its `reply.finished` event, in one
 * transaction) so the trajectory is complete and the participant sees a failed reply with Retry.
 * The stored text is the reply's last crash checkpoint (reply_progress, written while it streamed: at most
 * ~500 ms or a few hundred characters behind what the participant saw), or empty when none was written.
 * ttftMs and durationMs come from the checkpoint too (null without one: unknown). Returns how many it closed.
 */
export async function recoverInterruptedReplies(store: Store, config: LoadedConfig, now: number): Promise<number> {
  const open = await store.events.listUnfinishedReplies();
  let closed = 0;
  for (const r of open) {
    // A reply waiting for a researcher (server/wizard/) is not interrupted: recoverReviews resumes its wait.
    const review = await store.reviews.get(r.replyId);
    if (review && (review.state === 'waiting' || review.state === 'claimed')) continue;
    const session = await store.sessions.get(r.sessionId);
    const condition = session ? config.studies.get(session.studyId)?.conditions.find((c) => c.id === session.conditionId) : undefined;
    const checkpoint = await store.replyProgress.get(r.replyId);
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
    await store.transaction(async (tx) => {
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
      await tx.messages.insert({
        id: r.replyId,
        sessionId: r.sessionId,
        eventSeq: seq,
        role: 'assistant',
        text,
        clientId: null,
        replyTo: r.replyTo,
        status: 'interrupted',
        tokens,
        ...provenance,
        createdAt: now,
      });
      await tx.replyProgress.delete(r.replyId);
    });
    closed++;
  }
  // Checkpoints of replies that were stored after all (a crash between the two writes cannot happen, as the
  // store deletes them in the same transaction; this keeps the table clean whatever older code left behind).
  await store.replyProgress.deleteStored();
  return closed;
}
