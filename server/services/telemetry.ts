import type { Telemetry, TelemetryAck } from '../../common/events';
import { loadSession, ServiceError, type ServiceContext } from './context';

/** Records focus/blur/paste/visibility events (paste: length and target only, never the content). */
export async function recordTelemetry(ctx: ServiceContext, sessionId: string, p: Telemetry): Promise<TelemetryAck> {
  const s = await loadSession(ctx, sessionId);
  if (s.session.status !== 'active') throw new ServiceError('session_over', 'this session has ended');
  const payload: Record<string, unknown> = { step: s.session.step };
  if (p.chars !== undefined) payload.chars = p.chars;
  if (p.target !== undefined) payload.target = p.target;
  if (p.state !== undefined) payload.state = p.state;
  const seq = await ctx.store.events.append(sessionId, `telemetry.${p.kind}`, payload, ctx.now(), p.clientTs);
  return { seq };
}
