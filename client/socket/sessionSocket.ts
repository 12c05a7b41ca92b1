import { io, type Socket } from 'socket.io-client';
import {
  clientEvents,
  serverPushes,
  type AckData,
  type ClientEventName,
  type ClientPayload,
  type ClientToServerEvents,
  type ServerPush,
  type ServerPushName,
  type ServerToClientEvents,
} from '../../common/events';
import { Envelope } from '../../common/envelope';
import { RequestError } from './errors';

export type ConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'unauthorized';

export interface SessionSocketOptions {
  token: string;
  /** Server origin; defaults to the page's origin. */
  url?: string;
  /** How long to wait for an ack once the request has been sent. */
  ackTimeoutMs?: number;
}

type PushHandler<E extends ServerPushName> = (payload: ServerPush<E>) => void;

/**
 * Typed socket.io connection for one participant session, driven by common/events.ts:
 *  - emit(event, payload) validates the payload with the shared schema before sending and resolves
 *    with the ack's `data` (checked against the ack schema), or rejects with a RequestError;
 *  - on(push, handler) delivers server pushes that pass their schema (a malformed push is dropped
 *    and logged rather than crashing the page);
 *  - onConnection reports connecting / connected / reconnecting / unauthorized.
 * socket.io reconnects by itself; callers re-sync on every 'connected' (see useParticipantSession).
 */
export class SessionSocket {
  private readonly socket: Socket<ServerToClientEvents, ClientToServerEvents>;
  private readonly ackTimeoutMs: number;
  private readonly connectionListeners = new Set<(state: ConnectionState) => void>();
  private state: ConnectionState = 'connecting';
  private closed = false;

  constructor(options: SessionSocketOptions) {
    this.ackTimeoutMs = options.ackTimeoutMs ?? 20_000;
    const socketOptions = { auth: { token: options.token }, transports: ['websocket', 'polling'] };
    this.socket = options.url ? io(options.url, socketOptions) : io(socketOptions);
    this.socket.on('connect', () => this.setState('connected'));
    this.socket.on('disconnect', (reason) => {
      this.setState('reconnecting');
      // socket.io reconnects by itself after transport loss, but not when the server closed the
      // socket (restart, overload shedding): try again shortly; a revoked token then fails cleanly.
      if (reason === 'io server disconnect' && !this.closed) setTimeout(() => !this.closed && this.socket.connect(), 1000);
    });
    this.socket.on('connect_error', (error) => {
      // The server refuses a bad token with connect_error "unauthorized"; retrying would not help.
      if (error.message === 'unauthorized') {
        this.socket.disconnect();
        this.setState('unauthorized');
      } else {
        this.setState('reconnecting');
      }
    });
  }

  get connected(): boolean {
    return this.socket.connected;
  }

  get connectionState(): ConnectionState {
    return this.state;
  }

  onConnection(listener: (state: ConnectionState) => void): () => void {
    this.connectionListeners.add(listener);
    return () => this.connectionListeners.delete(listener);
  }

  /**
   * Sends a client event and resolves with the ack data. Requests made while disconnected wait in
   * socket.io's buffer and go out on reconnect; the timeout runs from the call.
   */
  emit<E extends ClientEventName>(event: E, payload: ClientPayload<E>): Promise<AckData<E>> {
    const spec = clientEvents[event];
    const checked = spec.payload.safeParse(payload);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      const field = issue?.path.map(String).join('.');
      return Promise.reject(new RequestError('invalid_input', `${event}: ${field ? `${field}: ` : ''}${issue?.message ?? 'invalid'}`, field));
    }
    const replySchema = Envelope(spec.ack);
    return new Promise<AckData<E>>((resolve, reject) => {
      // socket.io's typed emit cannot follow a generic event name; the payload was validated above.
      const untyped = this.socket.timeout(this.ackTimeoutMs) as unknown as {
        emit(event: string, payload: unknown, ack: (err: Error | null, reply: unknown) => void): void;
      };
      untyped.emit(event, checked.data, (err, reply) => {
        if (err) {
          reject(new RequestError(this.socket.connected ? 'timeout' : 'disconnected', 'The server did not answer in time. Please check your connection and try again.'));
          return;
        }
        const parsed = replySchema.safeParse(reply);
        if (!parsed.success) {
          reject(new RequestError('internal', `Unexpected reply to ${event}.`));
        } else if (parsed.data.ok) {
          resolve(parsed.data.data as AckData<E>);
        } else {
          reject(new RequestError(parsed.data.error.code, parsed.data.error.message, parsed.data.error.field));
        }
      });
    });
  }

  /** Subscribes to a server push; returns the unsubscribe function. */
  on<E extends ServerPushName>(event: E, handler: PushHandler<E>): () => void {
    const schema = serverPushes[event];
    const listener = (payload: unknown) => {
      const parsed = schema.safeParse(payload);
      if (parsed.success) handler(parsed.data as ServerPush<E>);
      else console.warn(`Dropped malformed ${event} push`, parsed.error.issues[0]);
    };
    const untyped = this.socket as unknown as { on(e: string, l: (p: unknown) => void): void; off(e: string, l: (p: unknown) => void): void };
    untyped.on(event, listener);
    return () => untyped.off(event, listener);
  }

  close(): void {
    this.closed = true;
    this.socket.disconnect();
    this.connectionListeners.clear();
  }

  private setState(state: ConnectionState): void {
    if (this.state === 'unauthorized') return;
    this.state = state;
    for (const listener of this.connectionListeners) listener(state);
  }
}
