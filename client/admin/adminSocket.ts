import { io, type Socket } from 'socket.io-client';
import {
  adminClientEvents,
  adminServerPushes,
  type AdminAckData,
  type AdminClientEventName,
  type AdminClientPayload,
  type AdminClientToServerEvents,
  type AdminPush,
  type AdminPushName,
  type AdminServerToClientEvents,
} from '../../common/admin';
import { emitValidated, onValidated } from '../socket/validatedSocket';

/**
 * Typed connection to the /admin namespace, driven by common/admin.ts like client/socket/sessionSocket.ts
 * is by common/events.ts: emit() validates the payload and the ack envelope; on() delivers only pushes
 * that pass their schema (a malformed push is dropped and logged). The login cookie authenticates the
 * handshake (same origin).
 */
export class AdminSocket {
  private readonly socket: Socket<AdminServerToClientEvents, AdminClientToServerEvents>;

  constructor(private readonly ackTimeoutMs = 15_000) {
    this.socket = io('/admin', { withCredentials: true });
  }

  onConnect(listener: () => void): void {
    this.socket.on('connect', listener);
  }

  onDisconnect(listener: () => void): void {
    this.socket.on('disconnect', listener);
  }

  /** Handshake refused or the transport failed; `unauthorized` means the login has ended. */
  onConnectError(listener: (message: string) => void): void {
    this.socket.on('connect_error', (error) => listener(error.message));
  }

  emit<E extends AdminClientEventName>(event: E, payload: AdminClientPayload<E>): Promise<AdminAckData<E>> {
    return emitValidated<AdminAckData<E>>(this.socket as Socket, event, adminClientEvents[event], payload, {
      ackTimeoutMs: this.ackTimeoutMs,
      timeoutMessage: `The server did not answer ${event} in time.`,
    });
  }

  /** Subscribes to a push; returns the unsubscribe function. */
  on<E extends AdminPushName>(event: E, handler: (payload: AdminPush<E>) => void): () => void {
    return onValidated<AdminPush<E>>(this.socket as Socket, event, adminServerPushes[event], handler);
  }

  close(): void {
    this.socket.close();
  }
}
