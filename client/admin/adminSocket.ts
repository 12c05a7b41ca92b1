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
import { Envelope } from '../../common/envelope';
import { RequestError } from '../socket/errors';

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
    const spec = adminClientEvents[event];
    const checked = spec.payload.safeParse(payload);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      const field = issue?.path.map(String).join('.');
      return Promise.reject(new RequestError('invalid_input', `${event}: ${field ? `${field}: ` : ''}${issue?.message ?? 'invalid'}`, field));
    }
    const replySchema = Envelope(spec.ack);
    return new Promise<AdminAckData<E>>((resolve, reject) => {
      // socket.io's typed emit cannot follow a generic event name; the payload was validated above.
      const untyped = this.socket.timeout(this.ackTimeoutMs) as unknown as {
        emit(event: string, payload: unknown, ack: (err: Error | null, reply: unknown) => void): void;
      };
      untyped.emit(event, checked.data, (err, reply) => {
        if (err) return reject(new RequestError(this.socket.connected ? 'timeout' : 'disconnected', `The server did not answer ${event} in time.`));
        const parsed = replySchema.safeParse(reply);
        if (!parsed.success) reject(new RequestError('internal', `Unexpected reply to ${event}.`));
        else if (parsed.data.ok) resolve(parsed.data.data as AdminAckData<E>);
        else reject(new RequestError(parsed.data.error.code, parsed.data.error.message, parsed.data.error.field));
      });
    });
  }

  /** Subscribes to a push; returns the unsubscribe function. */
  on<E extends AdminPushName>(event: E, handler: (payload: AdminPush<E>) => void): () => void {
    const schema = adminServerPushes[event];
    const listener = (payload: unknown) => {
      const parsed = schema.safeParse(payload);
      if (parsed.success) handler(parsed.data as AdminPush<E>);
      else console.warn(`Dropped malformed ${event} push`, parsed.error.issues[0]);
    };
    const untyped = this.socket as unknown as { on(e: string, l: (p: unknown) => void): void; off(e: string, l: (p: unknown) => void): void };
    untyped.on(event, listener);
    return () => untyped.off(event, listener);
  }

  close(): void {
    this.socket.close();
  }
}
