import { readFileSync } from 'node:fs';
import type { Store } from '../../lib/storage';
import type { LogRecord } from '../../research/simulation/jsonlLog';

/**
 * Compares what simulated participants logged with what the database holds:
 *  - every acknowledged chat message is stored exactly once (one message row with the acked id, one
 *    trajectory event carrying its clientId) — zero lost, zero duplicated;
 *  - every stored participant message was sent by a participant (nothing invented) and, for messages
 *    sent but never acknowledged (a crash ate the ack), stored at most once;
 *  - every stored reply has a final status, and replies cut mid-stream are flagged interrupted;
 *  - optionally, every acknowledged message ended with a complete (or stopped) reply: no turn stuck.
 */

export interface LogCheckReport {
  sessions: number;
  acked: number;
  /** Acked messages whose ack came only after the client resent them (same clientId). */
  ackedAfterResend: number;
  sentNotAcked: number;
  lost: string[];
  duplicated: string[];
  phantom: string[];
  /** Assistant messages stored as interrupted (and flagged so). */
  interruptedReplies: number;
  errorReplies: number;
  /** Replies whose status says interrupted but the flag does not (or vice versa). */
  badInterruptFlags: string[];
  /** Acked user messages whose last reply is not complete/stopped. */
  unanswered: string[];
  /** Replies the trajectory says were started (reply.started) but that have no stored outcome. */
  unfinishedReplies: string[];
  /** Once-per-session trajectory events (consent, each step change, submission, survey, completion) recorded twice. */
  duplicatedLifecycle: string[];
  problems: string[];
}

/** Trajectory events that a session records at most once (step.changed: once per from→to). */
const ONCE_PER_SESSION = new Set([
  'session.created', 'consent.accepted', 'consent.declined', 'step.changed',
  'artifact.submitted', 'survey.submitted', 'session.completed', 'session.timed_out',
]);

export function readJsonl(path: string): LogRecord[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l, i) => {
      try {
        return JSON.parse(l) as LogRecord;
      } catch {
        throw new Error(`${path}:${i + 1}: not JSON`);
      }
    });
}

/** Events whose payload carries this clientId (top level or one object down). */
function carriesClientId(payload: unknown, clientId: string): boolean {
  if (!payload || typeof payload !== 'object') return false;
  const p = payload as Record<string, unknown>;
  if (p.clientId === clientId) return true;
  return Object.values(p).some((v) => v !== null && typeof v === 'object' && (v as Record<string, unknown>).clientId === clientId);
}

export async function checkLogAgainstStore(records: readonly LogRecord[], store: Store, options: { expectAnswered?: boolean } = {}): Promise<LogCheckReport> {
  const sessionOf = new Map<string, string>(); // "<run>:<participant>" -> session id
  const sent = new Map<string, string>(); // clientId -> sessionId
  const acked = new Map<string, { sessionId: string; messageId: string }>();
  const problems: string[] = [];
  const resentThenAcked = new Set<string>();
  for (const r of records) {
    if (r.kind === 'chat_ack' && typeof r.clientId === 'string' && typeof r.attempts === 'number' && r.attempts > 1) resentThenAcked.add(r.clientId);
    const sessionId = typeof r.sessionId === 'string' ? r.sessionId : null;
    if (r.kind === 'join' && sessionId) {
      const who = `${String(r.run ?? '')}:${r.participant}`;
      const before = sessionOf.get(who);
      if (before && before !== sessionId) problems.push(`participant ${who} joined two sessions: ${before}, ${sessionId}`);
      sessionOf.set(who, sessionId);
    }
    if (r.kind === 'send' && sessionId && typeof r.clientId === 'string') sent.set(r.clientId, sessionId);
    if (r.kind === 'chat_ack' && sessionId && typeof r.clientId === 'string' && typeof r.messageId === 'string') {
      const prior = acked.get(r.clientId);
      if (prior && prior.messageId !== r.messageId) problems.push(`clientId ${r.clientId} acked with two message ids: ${prior.messageId}, ${r.messageId}`);
      acked.set(r.clientId, { sessionId, messageId: r.messageId });
    }
  }

  const lost: string[] = [];
  const duplicated: string[] = [];
  const phantom: string[] = [];
  const badInterruptFlags: string[] = [];
  const unanswered: string[] = [];
  const unfinishedReplies: string[] = [];
  const duplicatedLifecycle: string[] = [];
  let interruptedReplies = 0;
  let errorReplies = 0;

  const sessionIds = new Set(sessionOf.values());
  for (const sessionId of sessionIds) {
    const messages = await store.messages.listForSession(sessionId);
    const events = await store.events.listForSession(sessionId);
    for (const m of messages) {
      if (m.role === 'user') {
        if (!m.clientId || !sent.has(m.clientId)) phantom.push(`${sessionId}/${m.id} (clientId ${m.clientId})`);
        const carrying = events.filter((e) => carriesClientId(e.payload, m.clientId ?? '')).length;
        if (carrying > 1) duplicated.push(`${m.clientId}: ${carrying} events`);
      } else {
        if (m.status === 'interrupted') interruptedReplies += 1;
        if (m.status === 'error') errorReplies += 1;
        if ((m.status === 'interrupted') !== m.interrupted && m.status !== 'error') badInterruptFlags.push(`${sessionId}/${m.id}: status ${m.status}, interrupted ${m.interrupted}`);
      }
    }
    const storedIds = new Set(messages.map((m) => m.id));
    for (const e of events) {
      const replyId = e.type === 'reply.started' ? (e.payload as { replyId?: unknown } | null)?.replyId : undefined;
      if (typeof replyId === 'string' && !storedIds.has(replyId)) unfinishedReplies.push(`${sessionId}/${replyId} (event seq ${e.seq})`);
    }
    const lifecycle = new Map<string, number>();
    for (const e of events) {
      if (!ONCE_PER_SESSION.has(e.type)) continue;
      const p = (e.payload ?? {}) as { from?: unknown; to?: unknown };
      const key = e.type === 'step.changed' ? `step.changed ${String(p.from)}→${String(p.to)}` : e.type;
      lifecycle.set(key, (lifecycle.get(key) ?? 0) + 1);
    }
    for (const [key, n] of lifecycle) if (n > 1) duplicatedLifecycle.push(`${sessionId}: ${key} ×${n}`);
    const userByClient = new Map<string, number>();
    for (const m of messages) if (m.role === 'user' && m.clientId) userByClient.set(m.clientId, (userByClient.get(m.clientId) ?? 0) + 1);
    for (const [clientId, n] of userByClient) if (n > 1) duplicated.push(`${clientId}: ${n} rows`);
  }

  for (const [clientId, { sessionId, messageId }] of acked) {
    const row = await store.messages.findByClientId(sessionId, clientId);
    if (!row) {
      lost.push(`${clientId} (acked as ${messageId}, session ${sessionId})`);
      continue;
    }
    if (row.id !== messageId) problems.push(`${clientId}: acked as ${messageId} but stored as ${row.id}`);
    if (options.expectAnswered) {
      const replies = (await store.messages.listForSession(sessionId)).filter((m) => m.role === 'assistant' && m.replyTo === row.id);
      const last = replies[replies.length - 1];
      if (!last || (last.status !== 'complete' && last.status !== 'stopped')) unanswered.push(`${clientId}: last reply ${last?.status ?? 'missing'}`);
    }
  }
  const sentNotAcked = [...sent.keys()].filter((c) => !acked.has(c)).length;

  return {
    sessions: sessionIds.size,
    acked: acked.size,
    ackedAfterResend: resentThenAcked.size,
    sentNotAcked,
    lost,
    duplicated,
    phantom,
    interruptedReplies,
    errorReplies,
    badInterruptFlags,
    unanswered,
    unfinishedReplies,
    duplicatedLifecycle,
    problems,
  };
}

/** True when nothing was lost, duplicated, invented or wrongly flagged. */
export function isClean(report: LogCheckReport): boolean {
  return (
    report.lost.length === 0 &&
    report.duplicated.length === 0 &&
    report.phantom.length === 0 &&
    report.badInterruptFlags.length === 0 &&
    report.unanswered.length === 0 &&
    report.unfinishedReplies.length === 0 &&
    report.duplicatedLifecycle.length === 0 &&
    report.problems.length === 0
  );
}

export function formatReport(r: LogCheckReport): string {
  const list = (name: string, xs: string[]) => (xs.length ? `\n  ${name} (${xs.length}): ${xs.slice(0, 5).join('; ')}${xs.length > 5 ? ' …' : ''}` : '');
  return (
    `sessions ${r.sessions}, acked messages ${r.acked} (${r.ackedAfterResend} only after a resend), sent but never acked ${r.sentNotAcked}, ` +
    `lost ${r.lost.length}, duplicated ${r.duplicated.length}, phantom ${r.phantom.length}, ` +
    `interrupted replies ${r.interruptedReplies}, error replies ${r.errorReplies}, unanswered ${r.unanswered.length}, started-but-never-stored replies ${r.unfinishedReplies.length}, lifecycle duplicates ${r.duplicatedLifecycle.length}` +
    list('lost', r.lost) + list('duplicated', r.duplicated) + list('phantom', r.phantom) +
    list('bad interrupt flags', r.badInterruptFlags) + list('unanswered', r.unanswered) +
    list('started but never stored (not marked interrupted)', r.unfinishedReplies) +
    list('lifecycle events recorded twice', r.duplicatedLifecycle) + list('problems', r.problems)
  );
}
