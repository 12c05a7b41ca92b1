import type { Logger } from 'pino';
import type { SessionSockets } from '../services/serviceContext';
import type { ChatService } from '../services/chat';
import { sessionRoom, type ParticipantServer } from './handlers';

/**
 * Live activity of participant sessions, for actions that must stop it before they change the sessions:
 * every socket of a session is in its room `session:<id>` (handlers.ts), on the default namespace, so
 * disconnecting the room ends them all; a reply in flight lives in the ChatService.
 */
export interface LiveSessions extends SessionSockets {
  /**
   * Stops everything live in these sessions: disconnects their sockets, aborts their replies in flight and
   * waits until each reply has been stored (so nothing writes to a session after the caller deletes it).
   * Revoke the sessions' tokens first, or a client reconnects.
   */
  stop(sessionIds: readonly string[]): Promise<void>;
}

export function liveSessions(io: ParticipantServer, chat: ChatService, log: Logger): LiveSessions {
  const disconnect = (sessionIds: readonly string[], reason: string) => {
    for (const id of sessionIds) {
      const room = io.of('/').adapter.rooms.get(sessionRoom(id));
      if (room && room.size > 0) log.info({ sessionId: id, sockets: room.size, reason }, 'disconnecting session sockets');
      io.in(sessionRoom(id)).disconnectSockets(true);
    }
  };
  return {
    disconnect,
    async stop(sessionIds) {
      disconnect(sessionIds, 'withdrawn');
      // A handler that was already past its checks when the socket left may still start a reply: let it
      // reach the ChatService before aborting.
      await new Promise<void>((resolve) => setImmediate(resolve));
      for (let round = 0; round < 3; round++) {
        const busy = sessionIds.filter((id) => chat.inFlightView(id) !== null);
        if (busy.length === 0) return;
        await Promise.all(
          busy.map(async (id) => {
            await chat.stop(id, { clientTs: Date.now() });
            await chat.settled(id);
          }),
        );
      }
    },
  };
}
