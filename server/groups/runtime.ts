/**
 * The group runtime on one node: the group:* socket events beside the participant handlers (same namespace, same
 * token handshake, so socket.data.sessionId is the socket's session), and the sweep (lobby timeouts, dropouts, idle
 * agents) that one node of the cluster runs at a time. server/app.ts starts it with attachGroupRuntime.
 */
import type { Logger } from 'pino';
import type { Server, Socket } from 'socket.io';
import type { z } from 'zod';
import { fail, failFromZod, ok, type Envelope } from '../../common/envelope';
import { groupClientEvents, type GroupClientEventName } from '../../common/groupEvents';
import type { ServiceContext } from '../services/serviceContext';
import { errorEnvelope, eventRateLimiter, sessionRoom } from '../socket/handlers';
import { GroupAgents } from './agents';
import { groupRoom, lobbyRoom, type GroupContext, type GroupPushes, type GroupTimings } from './groupContext';
import { GroupLobby } from './lobby';
import { GroupPresence } from './presence';
import { GroupRoom } from './room';
import { agentsOfGroup, speaksWhenIdle } from './speaking';
import { groupViewFor } from './views';
import { GroupMonitorTap, type MonitorListener } from './monitorTap';
import { spokenByWizard } from '../../common/group';

export interface GroupRuntime {
  lobby: GroupLobby;
  room: GroupRoom;
  presence: GroupPresence;
  agents: GroupAgents;
  /**
   * The researcher side's hook (server/admin/ mounts it): every change of a group or lobby this node makes, as a
   * monitor push, while `active()` says someone watches (else nothing is looked up). Returns the unsubscribe function.
   */
  onMonitor(listener: MonitorListener, active?: () => boolean): () => void;
  /** One sweep now (tests; the timer runs it every timings.sweepMs). */
  sweep(): Promise<void>;
  stop(): Promise<void>;
}

function socketPushes(io: Server, monitor: GroupMonitorTap): GroupPushes {
  const emit = (room: string, event: string, payload: unknown) => (io.to(room).emit as (e: string, p: unknown) => boolean)(event, payload);
  return {
    toSession: (id, event, payload) => {
      emit(sessionRoom(id), event, payload);
      if (event === 'group:view') monitor.sessionChanged(id);
    },
    toGroup: (id, event, payload) => {
      emit(groupRoom(id), event, payload);
      monitor.groupPush(id, event, payload);
    },
    toLobby: (key, event, payload) => {
      emit(lobbyRoom(key), event, payload);
      monitor.lobbyChanged(key);
    },
    joinGroupRoom: (id, groupId) => io.in(sessionRoom(id)).socketsJoin(groupRoom(groupId)),
    joinLobbyRoom: (id, key) => io.in(sessionRoom(id)).socketsJoin(lobbyRoom(key)),
    leaveLobbyRoom: (id, key) => io.in(sessionRoom(id)).socketsLeave(lobbyRoom(key)),
    socketCount: async (id) => (await io.in(sessionRoom(id)).fetchSockets()).length,
  };
}

export function attachGroupRuntime(io: Server, ctx: ServiceContext, log: Logger, timings: Partial<GroupTimings> = {}): GroupRuntime {
  const monitor = new GroupMonitorTap(ctx.store, log);
  const g: GroupContext = { ctx, push: socketPushes(io, monitor), timings: { sweepMs: 1000, ...timings }, typing: new Map() };
  const lobby = new GroupLobby(g);
  const agents = new GroupAgents(g);
  const room = new GroupRoom(g, agents, monitor);
  const presence = new GroupPresence(g, room);
  const handlers: { [E in GroupClientEventName]: (sessionId: string, payload: any) => Promise<unknown> } = {
    'group:status': (id) => groupViewFor(g, id),
    'group:lobby:join': (id, p) => lobby.join(id, p.answers),
    'group:lobby:leave': (id) => lobby.leave(id),
    'group:send': (id, p) => room.send(id, p),
    'group:history': (id, p) => room.history(id, p),
    'group:typing': (id, p) => room.typing(id, p),
    'group:doc:update': (id, p) => room.docUpdate(id, p),
  };

  io.on('connection', (socket: Socket) => {
    const { sessionId, studyId, conditionId } = socket.data as { sessionId?: string; studyId?: string; conditionId?: string };
    if (!sessionId) return;
    // A session of a condition without `group:` has no room, lobby or presence: nothing to look up or record.
    const grouped = studyId === undefined || ctx.config.studies.get(studyId)?.conditions.find((c) => c.id === conditionId)?.group !== undefined;
    // The socket's group events wait for this: a reload's group:status answers only once the socket is in its
    // room, so no message pushed after that answer can miss it.
    const placed = !grouped
      ? Promise.resolve()
      : presence.connected(sessionId).then(
          (where) => {
            if (where && 'groupId' in where) void socket.join(groupRoom(where.groupId));
            else if (where) void socket.join(lobbyRoom(where.lobbyKey));
          },
          (err: unknown) => log.warn({ err, sessionId }, 'could not place a socket in its group'),
        );
    const limiter = eventRateLimiter();
    for (const name of Object.keys(groupClientEvents) as GroupClientEventName[]) {
      socket.on(name, async (...args: unknown[]) => {
        const last = args[args.length - 1];
        const ack = typeof last === 'function' ? (last as (reply: Envelope<unknown>) => void) : () => {};
        if (!limiter()) return ack(fail('rate_limited', `${name}: too many events; slow down`));
        const raw = typeof last === 'function' ? args.slice(0, -1)[0] : args[0];
        const parsed = (groupClientEvents[name] as z.ZodType).safeParse(raw ?? {});
        if (!parsed.success) return ack(failFromZod(parsed.error, name));
        try {
          await placed;
          ack(ok(await handlers[name](sessionId, parsed.data)));
        } catch (err) {
          ack(errorEnvelope(err, log, { event: name, sessionId }));
        }
      });
    }
    socket.on('disconnect', () => {
      if (!grouped) return;
      presence.disconnected(sessionId).catch((err: unknown) => log.warn({ err, sessionId }, 'could not record a group disconnect'));
    });
  });

  const idleAgents = async () => {
    for (const group of await ctx.store.groups.listActiveGroups()) {
      const condition = ctx.config.studies.get(group.studyId)?.conditions.find((c) => c.id === group.conditionId);
      if (!condition?.agents?.some((a) => typeof a.speaks === 'object' && 'idle_seconds' in a.speaks)) continue;
      const [messages, members] = await Promise.all([ctx.store.groups.listMessages(group.id), ctx.store.groups.listMembers(group.id)]);
      for (const agent of agentsOfGroup(condition.agents, members))
        if (!spokenByWizard(agent) && speaksWhenIdle(agent, messages, ctx.now())) void agents.reply(group, agent);
    }
  };
  let sweeping: Promise<void> | undefined;
  const sweep = () =>
    (sweeping ??= ctx.store.locks
      .tryRun('group-sweep', async () => {
        await lobby.sweep();
        await presence.sweep();
        await idleAgents();
      })
      .then(
        () => undefined,
        (err: unknown) => log.warn({ err }, 'group sweep failed'),
      )
      .finally(() => (sweeping = undefined)));
  const timer = setInterval(() => void sweep(), g.timings.sweepMs);
  timer.unref();
  return {
    lobby,
    room,
    presence,
    agents,
    onMonitor: (listener, active) => monitor.listen(listener, active),
    sweep,
    stop: async () => {
      clearInterval(timer);
      await sweeping;
      agents.stop();
      await agents.idle();
    },
  };
}
