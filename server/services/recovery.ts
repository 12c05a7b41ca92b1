import type { Store } from '../db/store';
import type { LoadedConfig } from './config';

/**
 * Start-up crash recovery: a reply that was streaming when the process died has a `reply.started`
 * event but no stored outcome. Each is stored as interrupted (with its `reply.finished` event, in one
 * transaction) so the trajectory is complete and the participant sees a failed reply with Retry.
 * The streamed text itself was never persisted, so the stored text is empty. Returns how many it closed.
 */
export function recoverInterruptedReplies(store: Store, config: LoadedConfig, now: number): number {
  const open = store.events.listUnfinishedReplies();
  for (const r of open) {
    const session = store.sessions.get(r.sessionId);
    const condition = session ? config.studies.get(session.studyId)?.conditions.find((c) => c.id === session.conditionId) : undefined;
    const error = { kind: 'stream', message: 'the server stopped during the reply', retryable: true };
    const provenance = {
      provider: null,
      providerUrl: null,
      model: null,
      requestedModel: condition?.model ?? null,
      params: condition ? { temperature: condition.temperature, max_tokens: condition.max_tokens } : null,
      usage: null,
      ttftMs: null,
      durationMs: now - r.startedAt,
      finishReason: 'error',
      interrupted: true,
      attempts: null,
      error,
    };
    store.transaction(() => {
      const seq = store.events.append(
        r.sessionId,
        'reply.finished',
        { replyId: r.replyId, replyTo: r.replyTo, status: 'interrupted', text: '', tokens: 0, ...provenance, recovered: true },
        now,
        null,
      );
      store.messages.insert({
        id: r.replyId,
        sessionId: r.sessionId,
        eventSeq: seq,
        role: 'assistant',
        text: '',
        clientId: null,
        replyTo: r.replyTo,
        status: 'interrupted',
        tokens: 0,
        ...provenance,
        createdAt: now,
      });
    });
  }
  return open.length;
}
