/**
 * The session rows this node has seen, by id (bounded). Only a session's immutable parts are read from them — its
 * study, task and condition ids — so a row seen once answers "which study, task, condition" for the rest of the
 * session without a store read: the chat ack's limits, and whether a connecting socket belongs to a group condition.
 */
import type { SessionRow } from '../../lib/storage';
import { loadSession, sessionContextOf, type ServiceContext, type SessionContext } from './serviceContext';

const seen = new WeakMap<ServiceContext['config'], Map<string, SessionRow>>();
const MAX_SEEN = 50_000;

/** Remembers a session's row (services that load it anyway call this, so later lookups need no read). */
export function rememberSession(ctx: Pick<ServiceContext, 'config'>, session: SessionRow): void {
  let rows = seen.get(ctx.config);
  if (!rows) seen.set(ctx.config, (rows = new Map()));
  if (rows.size >= MAX_SEEN && !rows.has(session.id)) rows.delete(rows.keys().next().value!);
  rows.set(session.id, session);
}

/**
 * The session's study, task, condition and survey definitions. Its row may be one seen earlier: use only the
 * definitions (and the ids), never the row's changing fields (status, step, counters).
 */
export async function sessionDefinitions(ctx: ServiceContext, sessionId: string): Promise<SessionContext> {
  const row = seen.get(ctx.config)?.get(sessionId);
  if (row) return sessionContextOf(ctx, row);
  const s = await loadSession(ctx, sessionId);
  rememberSession(ctx, s.session);
  return s;
}
