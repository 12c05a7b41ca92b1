import type { Namespace, Server } from 'socket.io';
import { ClusterAdapter } from 'socket.io-adapter';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { InFlightView } from '../services/inFlightReply';

/**
 * Questions one node asks the others about what lives only in their memory: how many sockets a session has
 * open there, which sessions are connected there (the admin monitor), and the text so far of a reply that
 * streams there (a tab that reconnects to another node resumes it). socket.io's serverSideEmit with an ack
 * carries them over the adapter; each answer is a few bytes, unlike fetchSockets, which ships every socket's
 * handshake. On a single node (no cluster adapter) only local state is read.
 *
 * A node that does not answer within ANSWER_TIMEOUT_MS (it just died; the adapter has not noticed yet) is
 * left out: the caller gets what is known locally rather than waiting.
 */
export const ANSWER_TIMEOUT_MS = 1000;

const SESSION_SOCKETS = 'tandem:session-sockets';
const CONNECTED_SESSIONS = 'tandem:connected-sessions';
const REPLY_IN_FLIGHT = 'tandem:reply-in-flight';

/** The server-to-server events, for the participant server's type (server/socket/handlers.ts). */
export interface ClusterEvents {
  [SESSION_SOCKETS]: (sessionId: string, reply: (count: number) => void) => void;
  [CONNECTED_SESSIONS]: (reply: (counts: Record<string, number>) => void) => void;
  [REPLY_IN_FLIGHT]: (sessionId: string, reply: (view: InFlightView | null) => void) => void;
}

const SessionId = z.string().min(1).max(200);
const Count = z.number().int().nonnegative();
const Counts = z.record(z.string(), Count);
const InFlight = z.object({ replyId: z.string(), replyTo: z.string(), text: z.string() }).nullable();

/** The participant namespace's room of a session (kept here so the cluster code needs no socket import). */
const roomOf = (sessionId: string) => `session:${sessionId}`;

/** True when the namespace's adapter reaches other nodes (Redis streams or PostgreSQL). */
export function isClusterAdapter(nsp: Namespace): boolean {
  return nsp.adapter instanceof ClusterAdapter;
}

type AnyServer = Server<any, any, any, any>;

/** Answers the other nodes' questions about this node. Call once, after the ChatService exists. */
export function answerClusterQueries(io: AnyServer, inFlightView: (sessionId: string) => InFlightView | null, log: Logger): void {
  const on = io.on.bind(io) as unknown as (event: string, listener: (...args: unknown[]) => void) => void;
  const replier = (args: unknown[]) => {
    const reply = args[args.length - 1];
    return typeof reply === 'function' ? (reply as (answer: unknown) => void) : undefined;
  };
  on(SESSION_SOCKETS, (...args) => {
    const id = SessionId.safeParse(args[0]);
    replier(args)?.(id.success ? localSessionSockets(io.of('/'), id.data) : 0);
  });
  on(CONNECTED_SESSIONS, (...args) => replier(args)?.(Object.fromEntries(localConnectedSessions(io.of('/')))));
  on(REPLY_IN_FLIGHT, (...args) => {
    const id = SessionId.safeParse(args[0]);
    try {
      replier(args)?.(id.success ? inFlightView(id.data) : null);
    } catch (err) {
      log.warn({ err }, 'could not answer a reply-in-flight question from another node');
      replier(args)?.(null);
    }
  });
}

/** Sockets of the session open on every node. */
export async function clusterSessionSockets(io: AnyServer, sessionId: string, log: Logger): Promise<number> {
  const remote = await askOtherNodes(io, SESSION_SOCKETS, [sessionId], log);
  let total = localSessionSockets(io.of('/'), sessionId);
  for (const answer of remote) {
    const n = Count.safeParse(answer);
    if (n.success) total += n.data;
  }
  return total;
}

/** Open participant sockets per session id, over every node. */
export async function clusterConnectedSessions(io: AnyServer, log: Logger): Promise<Map<string, number>> {
  const counts = localConnectedSessions(io.of('/'));
  for (const answer of await askOtherNodes(io, CONNECTED_SESSIONS, [], log)) {
    const parsed = Counts.safeParse(answer);
    if (!parsed.success) continue;
    for (const [id, n] of Object.entries(parsed.data)) counts.set(id, (counts.get(id) ?? 0) + n);
  }
  return counts;
}

/** The reply streaming for this session on another node, if any. */
export async function remoteReplyInFlight(io: AnyServer, sessionId: string, log: Logger): Promise<InFlightView | null> {
  for (const answer of await askOtherNodes(io, REPLY_IN_FLIGHT, [sessionId], log)) {
    const parsed = InFlight.safeParse(answer);
    if (parsed.success && parsed.data) return parsed.data;
  }
  return null;
}

function localSessionSockets(nsp: Namespace, sessionId: string): number {
  return nsp.adapter.rooms.get(roomOf(sessionId))?.size ?? 0;
}

function localConnectedSessions(nsp: Namespace): Map<string, number> {
  const counts = new Map<string, number>();
  for (const socket of nsp.sockets.values()) {
    const id = (socket.data as { sessionId?: unknown }).sessionId;
    if (typeof id === 'string') counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

/** Every other node's answer, or those that came within ANSWER_TIMEOUT_MS (none on a single node). */
function askOtherNodes(io: AnyServer, event: string, args: unknown[], log: Logger): Promise<unknown[]> {
  const nsp = io.of('/');
  if (!isClusterAdapter(nsp)) return Promise.resolve([]);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      log.debug({ event }, 'a node did not answer in time; using the answers known');
      resolve([]);
    }, ANSWER_TIMEOUT_MS);
    const done = (err: Error | null, responses: unknown[]) => {
      clearTimeout(timer);
      if (err) log.debug({ event, err: err.message }, 'some nodes did not answer');
      resolve(Array.isArray(responses) ? responses : []);
    };
    // The adapter's own method, not nsp.serverSideEmit: that one drops the promise, and a failure to count the
    // nodes (Redis away) would become an unhandled rejection.
    const adapter = nsp.adapter as unknown as { serverSideEmit(packet: unknown[]): Promise<unknown> | void };
    Promise.resolve(adapter.serverSideEmit([event, ...args, done])).catch((err: unknown) => done(err as Error, []));
  });
}
