/**
 * What the group runtime's parts share: the services' context, the pushes to sockets (cluster-wide through the
 * socket.io adapter), and this node's typing flags.
 */
import type { GroupPush, GroupPushName } from '../../common/groupEvents';
import type { ServiceContext } from '../services/serviceContext';

export interface GroupPushes {
  toSession<E extends GroupPushName>(sessionId: string, event: E, payload: GroupPush<E>): void;
  toGroup<E extends GroupPushName>(groupId: string, event: E, payload: GroupPush<E>): void;
  toLobby<E extends GroupPushName>(lobbyKey: string, event: E, payload: GroupPush<E>): void;
  /** Puts every socket of the session (on any node) into the group's room / the lobby's room. */
  joinGroupRoom(sessionId: string, groupId: string): void;
  joinLobbyRoom(sessionId: string, lobbyKey: string): void;
  leaveLobbyRoom(sessionId: string, lobbyKey: string): void;
  /** How many sockets the session has open, on every node. */
  socketCount(sessionId: string): Promise<number>;
}

export interface GroupTimings {
  /** How often the lobby, dropout and idle-agent sweep runs (default 1 s). */
  sweepMs: number;
}

export interface GroupContext {
  ctx: ServiceContext;
  push: GroupPushes;
  timings: GroupTimings;
  /** Seats typing right now, per group (this node's sockets only). */
  typing: Map<string, Set<number>>;
}

export const groupRoom = (groupId: string) => `group:${groupId}`;
export const lobbyRoom = (key: string) => `lobby:${key}`;
