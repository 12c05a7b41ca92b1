import type { Telemetry, TelemetryAck } from '../../common/events';
import type { TelemetryBatch, TelemetryBatchAck } from '../../common/telemetryBatch';
import { emptySummary, mergeBatch } from '../../common/telemetrySummary';
import { loadSession, ServiceError, type ServiceContext } from './serviceContext';
import { jsonBytes, requireStorageBudget } from './storageBudget';
import { classifyUserAgent } from './userAgentClass';

/**
 * Records focus/blur/paste/visibility events (paste: length and target only, never the content). Each event
 * counts against the session's storage budget like a chat message or a draft, checked in the transaction that
 * holds the session row (so sockets racing each other cannot all slip under it): past the budget it is refused
 * with `storage_full` and nothing is written.
 */
export async function recordTelemetry(ctx: ServiceContext, sessionId: string, p: Telemetry): Promise<TelemetryAck> {
  return ctx.store.transaction(async (tx) => {
    const s = await loadSession(ctx, sessionId, tx, true);
    if (s.session.status !== 'active') throw new ServiceError('session_over', 'this session has ended');
    const payload: Record<string, unknown> = { step: s.session.step };
    if (p.chars !== undefined) payload.chars = p.chars;
    if (p.target !== undefined) payload.target = p.target;
    if (p.state !== undefined) payload.state = p.state;
    await requireStorageBudget(ctx, tx, sessionId, jsonBytes(payload));
    const seq = await tx.events.append(sessionId, `telemetry.${p.kind}`, payload, ctx.now(), p.clientTs);
    return { seq };
  });
}

/**
 * Per-session bounds of `telemetry:batch` (docs/data-protection.md). The browser sends a batch at most every
 * 10 s and only when something happened, so 500 batches cover well over an hour of continuous typing; one
 * batch is at most a few KB (common/telemetryBatch.ts), so the byte bound is what stops a misbehaving client.
 */
export const MAX_TELEMETRY_BATCHES_PER_SESSION = 500;
export const MAX_TELEMETRY_BYTES_PER_SESSION = 512 * 1024;
/** The workspace's last batch leaves as the page moves on: accepted up to this long after the session completed. */
export const TELEMETRY_GRACE_MS = 60_000;

/**
 * Records one integrity-telemetry batch: a `telemetry.batch` trajectory event (the timeline: pastes, away
 * periods, typing counts) and the session's accumulated summary row (what the export's flags read), in one
 * transaction that holds the session row, so two tabs' batches are merged one after the other. Past the
 * per-session bound the batch is refused with `limit_reached` and nothing is written.
 */
export async function recordTelemetryBatch(
  ctx: ServiceContext,
  sessionId: string,
  batch: TelemetryBatch,
  userAgent: string | undefined,
): Promise<TelemetryBatchAck> {
  const bytes = Buffer.byteLength(JSON.stringify(batch));
  const ua = classifyUserAgent(userAgent);
  return ctx.store.transaction(async (tx) => {
    const s = await loadSession(ctx, sessionId, tx, true);
    const { status, endedAt } = s.session;
    const justCompleted = status === 'completed' && endedAt !== null && ctx.now() - endedAt <= TELEMETRY_GRACE_MS;
    if (status !== 'active' && !justCompleted) throw new ServiceError('session_over', 'this session has ended');
    const existing = await tx.telemetry.get(sessionId);
    const batches = (existing?.batches ?? 0) + 1;
    const totalBytes = (existing?.bytes ?? 0) + bytes;
    if (batches > MAX_TELEMETRY_BATCHES_PER_SESSION || totalBytes > MAX_TELEMETRY_BYTES_PER_SESSION)
      throw new ServiceError(
        'limit_reached',
        `telemetry:batch: this session has used its telemetry budget (${MAX_TELEMETRY_BATCHES_PER_SESSION} batches, ` +
          `${MAX_TELEMETRY_BYTES_PER_SESSION / 1024} KB); further telemetry is not recorded. Nothing else is affected.`,
      );
    const now = ctx.now();
    const payload = { step: s.session.step, ...stripClientTs(batch), ua };
    await requireStorageBudget(ctx, tx, sessionId, jsonBytes(payload));
    await tx.events.append(sessionId, 'telemetry.batch', payload, now, batch.clientTs);
    const summary = mergeBatch(existing?.summary ?? emptySummary(), batch, ua);
    await tx.telemetry.put({ sessionId, summary, batches, bytes: totalBytes, updatedAt: now });
    return { batches, remaining: MAX_TELEMETRY_BATCHES_PER_SESSION - batches };
  });
}

function stripClientTs(batch: TelemetryBatch): Omit<TelemetryBatch, 'clientTs'> {
  const { clientTs: _ignored, ...rest } = batch;
  return rest;
}
