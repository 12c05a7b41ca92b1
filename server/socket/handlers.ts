import type { Server, Socket } from 'socket.io';
import type { Logger } from 'pino';
import { z } from 'zod';
import { clientEvents, SocketAuth, type ArtifactDraft, type ArtifactDraftAck, type ClientEventName, type ClientToServerEvents, type ServerToClientEvents } from '../../common/events';
import { fail, failFromZod, ok, type Envelope } from '../../common/envelope';
import type { SessionState } from '../../common/session';
import type { ParticipantService, SessionTiming } from '../services/participants';
import { ServiceError } from '../services/serviceContext';
import { sessionForToken } from '../services/participantTokens';
import { recordTelemetryBatch } from '../services/telemetry';
import { cleanTextDeep } from '../services/textBoundary';
import { isStoreUnavailable, type SessionRow } from '../../lib/storage';
import { UNAVAILABLE_MESSAGE } from '../http/respond';
import { mirrorDraftToOtherTabs } from './draftSync';
import { eventRateLimiter, MAX_CONNECTIONS_PER_MINUTE, SessionConnectionGuard } from './sessionBudget';
import { answerClusterQueries, clusterSessionSockets, remoteReplyInFlight, type ClusterEvents } from '../cluster/clusterQueries';
import { windowCounter, type RateLimitStores } from '../cluster/rateLimitStore';

export type ParticipantServer = Server<ClientToServerEvents, ServerToClientEvents, ClusterEvents, SocketData>;
type ParticipantSocket = Socket<ClientToServerEvents, ServerToClientEvents, ClusterEvents, SocketData>;
export interface SocketData {
  sessionId: string;
  /** The session's study and condition (immutable), from the token lookup: e.g. whether it forms groups. */
  studyId: string;
  conditionId: string;
  /** Count the session's sockets again once this one is in its room (racing handshakes, sessionBudget.ts). */
  recheckBudget?: boolean;
  /** The session's time limit as the handshake read it (its token lookup reads the row), for the first arm only. */
  timingAtHandshake?: SessionTiming;
}

export const sessionRoom = (sessionId: string) => `session:${sessionId}`;

/** Events whose ack is a SessionState after a possible step change. */
const STEP_CHANGING = new Set<ClientEventName>(['consent:respond', 'step:advance', 'artifact:submit', 'survey:submit']);

/** Turns whatever a service threw into an error envelope; unexpected errors are logged, never shown raw. */
export function errorEnvelope(err: unknown, log: Logger, context: Record<string, unknown>): Envelope<never> {
  if (err instanceof ServiceError) return fail(err.code, err.message, err.field);
  if (isStoreUnavailable(err)) {
    // Retryable: a resend with the same clientId is stored once whatever happened to this attempt.
    log.warn({ err: (err as Error).message, ...context }, 'store unavailable');
    return fail('unavailable', UNAVAILABLE_MESSAGE);
  }
  log.error({ err, ...context }, 'unexpected error');
  return fail('internal', 'Something went wrong on the server. Please try again.');
}

type Handler = (sessionId: string, payload: any, socket: ParticipantSocket) => unknown;

/**
 * Session state for a (re)connecting tab. A tab that lands on another node than the one streaming the
 * session's reply gets that reply's text so far from the streaming node, so its deltas continue from it.
 */
async function sessionStateForTab(io: ParticipantServer, participants: ParticipantService, sessionId: string, log: Logger): Promise<SessionState> {
  const state = await participants.state(sessionId);
  // canRetry is true exactly when no reply streams here and the last participant message is unanswered.
  if (state.replyInFlight !== null || state.canRetry !== true) return state;
  const remote = await remoteReplyInFlight(io, sessionId, log);
  return remote ? { ...state, replyInFlight: remote, canRetry: false } : state;
}

/**
 * Wires the participant socket namespace: handshake auth by participant token (bound to one session),
 * one handler per client event. Each payload is validated with its common schema; an invalid payload
 * gets an error envelope naming the event and field and nothing is written. `rateLimits` holds the
 * per-session connection budget (shared by the nodes of a cluster).
 */
export function attachParticipantSockets(
  io: ParticipantServer,
  participants: ParticipantService,
  rateLimits: RateLimitStores,
  log: Logger,
  othersMayListen: (sessionId: string) => boolean = () => true,
): void {
  const { store } = participants.ctx;
  answerClusterQueries(io, (sessionId) => participants.chat.inFlightView(sessionId), log);

  const connections = new SessionConnectionGuard(
    (sessionId) => clusterSessionSockets(io, sessionId, log),
    windowCounter(rateLimits.create('socket-connect'), MAX_CONNECTIONS_PER_MINUTE, 60_000, log),
  );
  io.use((socket, next) => {
    const auth = SocketAuth.safeParse(socket.handshake.auth);
    if (!auth.success) return next(new Error('unauthorized'));
    const admit = async (): Promise<string | null> => {
      const session = await sessionForToken(store, auth.data.token);
      if (!session) return 'unauthorized';
      const { refused, open } = await connections.admit(session.id);
      if (refused) return refused;
      socket.data.sessionId = session.id;
      socket.data.studyId = session.studyId;
      socket.data.conditionId = session.conditionId;
      socket.data.timingAtHandshake = timingOrNothing(participants, session);
      socket.data.recheckBudget = SessionConnectionGuard.recheckAfterJoin(open);
      return null;
    };
    admit().then(
      (refused) => next(refused ? new Error(refused) : undefined),
      (err: unknown) => {
        log.warn({ err }, 'could not check a participant token');
        next(new Error('unavailable'));
      },
    );
  });

  const handlers: { [E in ClientEventName]: Handler } = {
    'session:state': (id) => sessionStateForTab(io, participants, id, log),
    'consent:respond': (id, p) => participants.consentRespond(id, p),
    'step:advance': (id, p) => participants.stepAdvance(id, p),
    'chat:send': (id, p) => participants.chatSend(id, p),
    'chat:stop': (id, p) => participants.chatStop(id, p),
    'chat:retry': (id, p) => participants.chatRetry(id, p),
    'artifact:draft': (id, p) => participants.artifactDraft(id, p),
    'artifact:submit': (id, p) => participants.artifactSubmit(id, p),
    'survey:submit': (id, p) => participants.surveySubmit(id, p),
    telemetry: (id, p) => participants.telemetry(id, p),
    'telemetry:batch': (id, p, socket) => recordTelemetryBatch(participants.ctx, id, p, socket.handshake.headers['user-agent']),
  };

  io.on('connection', (socket: ParticipantSocket) => {
    const sessionId = socket.data.sessionId;
    void socket.join(sessionRoom(sessionId));
    if (socket.data.recheckBudget) {
      connections.overBudget(sessionId).then(
        (over) => {
          if (!over) return;
          log.warn({ sessionId }, 'socket over the per-session budget after a racing handshake; closed');
          socket.disconnect(true);
        },
        (err: unknown) => log.warn({ err, sessionId }, 'could not count the session sockets again'),
      );
    }
    // Every event this socket sends is handled after its connection.opened is stored, so the trajectory
    // (and a session:state read) never shows a reconnect's actions before the reconnect itself.
    const opened = safely(() => participants.connectionOpened(sessionId));
    const timer = scheduleTimeLimit(io, participants, sessionId, log, socket.data.timingAtHandshake);

    const limiter = eventRateLimiter();
    for (const name of Object.keys(clientEvents) as ClientEventName[]) {
      socket.on(name, async (...args: unknown[]) => {
        // The ack is the last argument; a client that sent no ack gets no reply (but is still validated).
        const last = args[args.length - 1];
        const ack = typeof last === 'function' ? (last as (reply: Envelope<unknown>) => void) : () => {};
        if (!limiter()) return ack(fail('rate_limited', `${name}: too many events; slow down`));
        // NUL is dropped from every string before validation (server/services/textBoundary.ts).
        const raw = cleanTextDeep(typeof last === 'function' ? args.slice(0, -1)[0] : args[0]);
        const parsed = (clientEvents[name].payload as z.ZodType).safeParse(raw ?? (name === 'session:state' ? {} : raw));
        if (!parsed.success) return ack(failFromZod(parsed.error, name));
        try {
          await opened;
          const data = await handlers[name](sessionId, parsed.data, socket);
          ack(ok(data));
          if (name === 'consent:respond') timer.rearm(data as SessionState);
          // Other tabs of the same session follow step changes, and see a draft saved here as it is saved (draftSync.ts).
          if ((STEP_CHANGING.has(name) || name === 'artifact:draft') && othersMayListen(sessionId)) {
            if (name === 'artifact:draft') mirrorDraftToOtherTabs(socket, sessionRoom(sessionId), parsed.data as ArtifactDraft, data as ArtifactDraftAck);
            else socket.to(sessionRoom(sessionId)).emit('session:state', data as SessionState);
          }
        } catch (err) {
          ack(errorEnvelope(err, log, { event: name, sessionId }));
        }
      });
    }

    socket.on('disconnect', (reason) => {
      timer.cancel();
      void safely(() => participants.connectionClosed(sessionId, reason));
    });
  });

  function safely(fn: () => Promise<void>): Promise<void> {
    return fn().catch((err: unknown) => log.warn({ err }, 'could not record connection event'));
  }
}

/** Per-socket flood guard (re-exported; lives beside the per-session connection guard). */
export { eventRateLimiter };

/** The time limit of a row the handshake read; nothing when it cannot be worked out (the arm then reads and logs why). */
function timingOrNothing(participants: ParticipantService, session: SessionRow): SessionTiming | undefined {
  try {
    return participants.timingOfRow(session);
  } catch {
    return undefined; // e.g. its study is no longer configured: the socket is admitted as before
  }
}

/**
 * Pushes a fresh session:state when the session's time limit passes while this socket is connected.
 * Armed only while the session is at a timed step (instructions, workspace) with a deadline; the first arm uses
 * `atHandshake` when given (the row the token lookup read), later ones read the session.
 */
function scheduleTimeLimit(
  io: ParticipantServer,
  participants: ParticipantService,
  sessionId: string,
  log: Logger,
  atHandshake?: SessionTiming,
): { cancel(): void; rearm(known: SessionTiming): void } {
  let handle: NodeJS.Timeout | undefined;
  let cancelled = false;
  // Each arm() supersedes earlier ones still reading the state (only the latest may set the timer).
  let generation = 0;
  // `known`: the state an event just answered with (consent:respond), so nothing is read again.
  const arm = async (known?: SessionTiming) => {
    clearTimeout(handle);
    handle = undefined;
    const mine = ++generation;
    try {
      const state = known ?? (await participants.timing(sessionId));
      if (cancelled || mine !== generation) return;
      if (state.status !== 'active' || state.deadline === null) return;
      if (state.step !== 'instructions' && state.step !== 'workspace') return;
      const wait = Math.max(0, state.deadline - participants.ctx.now()) + 50;
      handle = setTimeout(() => void fire(), Math.min(wait, 2 ** 31 - 1));
    } catch (err) {
      log.warn({ err, sessionId }, 'could not arm time limit');
    }
  };
  const fire = async () => {
    try {
      if (await participants.expireIfDue(sessionId)) io.to(sessionRoom(sessionId)).emit('session:state', await participants.state(sessionId));
      else await arm();
    } catch (err) {
      log.warn({ err, sessionId }, 'time limit check failed');
    }
  };
  void arm(atHandshake);
  return {
    cancel: () => {
      cancelled = true;
      clearTimeout(handle);
    },
    rearm: (known) => void arm(known),
  };
}
