import type { Namespace, Server, Socket } from 'socket.io';
import type { Logger } from 'pino';
import { fail, failFromZod, ok } from '../../common/envelope';
import type { Store } from '../../lib/storage';
import { clusterConnectedSessions } from '../cluster/clusterQueries';
import {
  adminClientEvents,
  type AdminClientToServerEvents,
  type AdminPush,
  type AdminPushName,
  type AdminServerToClientEvents,
  type ConnectionState,
  type MonitorSnapshot,
} from '../../common/admin';
import { cookieFromHeader, SESSION_COOKIE, type AdminSessions } from './auth';
import type { LoadedConfig } from '../../lib/studyFiles/studyConfig';
import type { GroupRuntime } from '../groups/runtime';
import { monitorGroups } from './groupMonitor';
import { MonitorWatchers } from './monitorWatchers';

/**
 * The /admin socket.io namespace: researcher-only (the login cookie is checked in the handshake;
 * participant tokens are ignored), pushing the live monitor of a study to subscribed researchers.
 * Changes are detected by polling one cheap number (the newest event id — every participant action,
 * connect and disconnect appends an event) plus participant connection counts, so the participant
 * code needs no hook into the admin side.
 *
 * In a cluster each node polls for the researchers connected to it and pushes to them only (`ns.local`), while
 * the participant connection counts come from every node (server/cluster/clusterQueries.ts): a researcher on
 * node A sees the participant on node B.
 */

/** A connected participant with no event for this long is shown as idle. */
export const IDLE_AFTER_MS = 60_000;
/** Ended sessions stay on the monitor this long. */
export const SHOW_ENDED_FOR_MS = 15 * 60_000;
const POLL_MS = 400;
/** How often a periodic monitor push carries the groups again (a resync of the live pushes). */
const GROUPS_EVERY_MS = 5_000;

const monitorRoom = (studyId: string) => `monitor:${studyId}`;
/** Every socket of one researcher login, on whichever node, so that logout can end them all. */
const researcherRoom = (tokenHash: string) => `researcher:${tokenHash}`;

interface AdminSocketData {
  tokenHash: string;
  actor: string;
}

type AdminNs = Namespace<AdminClientToServerEvents, AdminServerToClientEvents>;

export interface AdminNamespace {
  namespace: AdminNs;
  /** Disconnects every socket of a researcher session (after logout). */
  disconnectSession(tokenHash: string): void;
  /** Pushes to researchers (export progress). */
  emitToAll<E extends AdminPushName>(event: E, payload: AdminPush<E>): void;
  snapshot(studyId: string): Promise<MonitorSnapshot>;
  close(): void;
}

/** What the monitor reads of group sessions: the study files (which conditions form groups) and this node's group runtime. */
export interface MonitorGroupSources {
  config: LoadedConfig;
  runtime: Pick<GroupRuntime, 'onMonitor'>;
}

export function attachAdminNamespace(io: Server, store: Store, sessions: AdminSessions, log: Logger, now: () => number, groupSources?: MonitorGroupSources): AdminNamespace {
  const queries = store.adminQueries;
  const ns: AdminNs = io.of('/admin');

  ns.use((socket, next) => {
    const token = cookieFromHeader(socket.handshake.headers.cookie, SESSION_COOKIE);
    sessions.resolve(token).then(
      (session) => {
        if (!session) return next(new Error('unauthorized'));
        (socket.data as AdminSocketData).tokenHash = session.tokenHash;
        (socket.data as AdminSocketData).actor = session.actor;
        next();
      },
      (err: unknown) => {
        log.warn({ err }, 'could not check a researcher session');
        next(new Error('unavailable'));
      },
    );
  });

  const connectionOf = (sockets: number, lastActivityAt: number, at: number): ConnectionState => {
    if (sockets === 0) return 'disconnected';
    return at - lastActivityAt > IDLE_AFTER_MS ? 'idle' : 'connected';
  };

  /** One study's monitor; `connected` (participant sockets per session over the cluster) is read when not given. */
  /** `withGroups` false: the groups are left out (the periodic push; the monitor:group pushes keep them current). */
  const snapshot = async (studyId: string, connected?: Map<string, number>, withGroups = true): Promise<MonitorSnapshot> => {
    const at = now();
    const [rows, sockets, groups] = await Promise.all([
      queries.monitorRows(studyId, at - SHOW_ENDED_FOR_MS),
      connected ?? clusterConnectedSessions(io, log),
      groupSources && withGroups ? monitorGroups(store, groupSources.config, studyId, at - SHOW_ENDED_FOR_MS) : undefined,
    ]);
    return {
      studyId,
      at,
      ...(groups ? { groups } : {}),
      sessions: rows.map((r) => ({
        sessionId: r.sessionId,
        taskId: r.taskId,
        conditionId: r.conditionId,
        step: r.step,
        status: r.status,
        isPilot: r.isPilot,
        connection: connectionOf(sockets.get(r.sessionId) ?? 0, r.lastActivityAt, at),
        lastActivityAt: r.lastActivityAt,
        messages: r.messages,
        elapsedMs: (r.endedAt ?? at) - (r.consentedAt ?? r.createdAt),
        createdAt: r.createdAt,
      })),
    };
  };

  ns.on('connection', (socket) => {
    void socket.join(researcherRoom((socket.data as AdminSocketData).tokenHash));
    // Payloads are validated with the shared schemas (common/admin.ts); a missing ack is tolerated.
    const listen = (socket as unknown as Socket).on.bind(socket);
    const replyTo = (ack: unknown) => (typeof ack === 'function' ? (ack as (r: unknown) => void) : () => {});
    const leaveMonitors = () => {
      for (const room of socket.rooms) if (room.startsWith('monitor:')) void socket.leave(room);
    };

    listen('monitor:subscribe', async (payload: unknown, ack?: unknown) => {
      const reply = replyTo(ack);
      const parsed = adminClientEvents['monitor:subscribe'].payload.safeParse(payload);
      if (!parsed.success) return reply(failFromZod(parsed.error, 'monitor:subscribe'));
      try {
        if (!(await store.studies.get(parsed.data.studyId))) return reply(fail('not_found', `no study "${parsed.data.studyId}"`));
        leaveMonitors();
        void socket.join(monitorRoom(parsed.data.studyId));
        watchers.announce(watchedHere(), true);
        reply(ok(await snapshot(parsed.data.studyId)));
      } catch (err) {
        log.error({ err }, 'monitor subscribe failed');
        reply(fail('internal', 'the monitor could not be read; please try again'));
      }
    });
    listen('monitor:unsubscribe', (payload?: unknown, ack?: unknown) => {
      // emit('monitor:unsubscribe', ack) without a payload puts the ack first
      if (typeof payload === 'function') [payload, ack] = [{}, payload];
      const reply = replyTo(ack);
      const parsed = adminClientEvents['monitor:unsubscribe'].payload.safeParse(payload ?? {});
      if (!parsed.success) return reply(failFromZod(parsed.error, 'monitor:unsubscribe'));
      leaveMonitors();
      reply(ok({}));
    });
  });

  // Change detection: newest event id + number of participant sockets; idle transitions need a periodic push too.
  let lastSignature = '';
  const groupsPushedAt = new Map<string, number>();
  let lastPushAt = 0;
  let polling = false;
  const poll = async () => {
    const rooms = [...ns.adapter.rooms.keys()].filter((r) => r.startsWith('monitor:'));
    if (rooms.length === 0) return;
    watchers.announce(rooms.map((r) => r.slice('monitor:'.length)));
    const [lastEventId, connected] = await Promise.all([queries.lastEventId(), clusterConnectedSessions(io, log)]);
    const signature = `${lastEventId}:${[...connected].sort(([a], [b]) => (a < b ? -1 : 1)).join(';')}`;
    const at = now();
    if (signature === lastSignature && at - lastPushAt < 10_000) return;
    lastSignature = signature;
    lastPushAt = at;
    // Local: every node pushes to its own researchers (a cluster-wide emit would reach them once per node).
    for (const room of rooms) {
      // The groups (a few queries and a document replay per group) ride along at most every GROUPS_EVERY_MS: between
      // those, the monitor:group pushes and a re-read on every lobby or group change keep them current.
      const studyId = room.slice('monitor:'.length);
      const withGroups = at - (groupsPushedAt.get(studyId) ?? 0) >= GROUPS_EVERY_MS;
      if (withGroups) groupsPushedAt.set(studyId, at);
      ns.local.to(room).emit('monitor:update', await snapshot(studyId, connected, withGroups));
    }
    for (const studyId of groupsPushedAt.keys()) if (!rooms.includes(`monitor:${studyId}`)) groupsPushedAt.delete(studyId);
  };
  // A group's live changes (messages, streamed replies, presence, document edits), made on this node, go to the
  // study's monitors on every node (through the adapter: each change is made, hence pushed, on one node only).
  // Only for studies someone watches, here or on another node (monitorWatchers.ts).
  const watchers = new MonitorWatchers(ns as unknown as Namespace, monitorRoom, now, log);
  const watchedHere = () => [...ns.adapter.rooms.keys()].filter((r) => r.startsWith('monitor:')).map((r) => r.slice('monitor:'.length));
  const stopGroupFeed = groupSources?.runtime.onMonitor(
    (push) => {
      if (watchers.watched(push.studyId)) ns.to(monitorRoom(push.studyId)).emit('monitor:group', push);
    },
    () => watchers.any(),
  );
  const timer = setInterval(() => {
    // Polls never overlap (a slow database must not pile them up).
    if (polling) return;
    polling = true;
    poll()
      .catch((err: unknown) => log.error({ err }, 'admin monitor push failed'))
      .finally(() => (polling = false));
  }, POLL_MS);
  timer.unref();

  return {
    namespace: ns,
    disconnectSession(tokenHash) {
      // Through the adapter: the researcher's sockets on every node.
      ns.in(researcherRoom(tokenHash)).disconnectSockets(true);
    },
    emitToAll(event, payload) {
      // socket.io's typed emit cannot follow a generic event name; the payload type is checked by the signature.
      (ns as unknown as Namespace).emit(event, payload);
    },
    snapshot,
    close() {
      clearInterval(timer);
      stopGroupFeed?.();
    },
  };
}
