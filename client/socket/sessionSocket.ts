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
import { emitValidated, onValidated } from './validatedSocket';
import { REFUSAL_UNAUTHORIZED, refusalNotice, retryDelayMs } from '../../common/reconnectPolicy';

/** `refused`: the server turned the handshake down for now (rate limit, too many tabs); a retry is scheduled. */
export type ConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'refused' | 'unauthorized';

export interface SessionSocketOptions {
  token: string;
  /** Server origin; defaults to the page's origin. */
  url?: string;
  /** How long to wait for an ack once the request has been sent. */
  ackTimeoutMs?: number;
  /** Delay before retry number `attempt` after a refusal or a server-side disconnect (tests shorten it). */
  retryDelayMs?: (attempt: number) => number;
}

type PushHandler<E extends ServerPushName> = (payload: ServerPush<E>) => void;

/**
 * Typed socket.io connection for one participant session, driven by common/events.ts:
 *  - emit(event, payload) validates the payload with the shared schema before sending and resolves
 *    with the ack's `data` (checked against the ack schema), or rejects with a RequestError;
 *  - on(push, handler) delivers server pushes that pass their schema (a malformed push is dropped
 *    and logged rather than crashing the page);
 *  - onConnection reports connecting / connected / reconnecting / refused / unauthorized.
 * socket.io reconnects by itself after a lost transport; after the server refused the handshake or
 * closed the socket it does not, so this class retries with backoff (see reconnectPolicy.ts), showing
 * `notice` meanwhile. Callers re-sync on every 'connected' (see useParticipantSession).
 */
export class SessionSocket {
  private readonly socket: Socket<ServerToClientEvents, ClientToServerEvents>;
  private readonly ackTimeoutMs: number;
  private readonly connectionListeners = new Set<(state: ConnectionState) => void>();
  private state: ConnectionState = 'connecting';
  private closed = false;
  private readonly retryDelay: (attempt: number) => number;
  private retryAttempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private refusal: string | null = null;

  constructor(options: SessionSocketOptions) {
    this.ackTimeoutMs = options.ackTimeoutMs ?? 20_000;
    this.retryDelay = options.retryDelayMs ?? ((attempt) => retryDelayMs(attempt));
    const socketOptions = { auth: { token: options.token }, transports: ['websocket', 'polling'] };
    this.socket = options.url ? io(options.url, socketOptions) : io(socketOptions);
    this.socket.on('connect', () => {
      this.retryAttempt = 0;
      this.refusal = null;
      this.setState('connected');
    });
    this.socket.on('disconnect', (reason) => {
      this.setState('reconnecting');
      // socket.io reconnects by itself after transport loss, but not when the server closed the
      // socket (restart, overload shedding): try again shortly; a revoked token then fails cleanly.
      if (reason === 'io server disconnect') this.scheduleRetry();
    });
    this.socket.on('connect_error', (error) => {
      if (error.message === REFUSAL_UNAUTHORIZED) {
        // A bad token: retrying would not help.
        this.socket.disconnect();
        this.setState('unauthorized');
      } else if (!this.socket.active) {
        // The server refused the handshake (rate limit, too many sockets for this session):
        // socket.io gives up here, so back off and try again, telling the participant why.
        this.refusal = refusalNotice(error.message);
        this.setState('refused');
        this.scheduleRetry();
      } else {
        this.setState('reconnecting');
      }
    });
  }

  /** A short message for the participant while the server refuses the connection, else null. */
  get notice(): string | null {
    return this.state === 'refused' ? this.refusal : null;
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
    return emitValidated<AckData<E>>(this.socket as Socket, event, clientEvents[event], payload, {
      ackTimeoutMs: this.ackTimeoutMs,
      timeoutMessage: 'The server did not answer in time. Please check your connection and try again.',
    });
  }

  /** Subscribes to a server push; returns the unsubscribe function. */
  on<E extends ServerPushName>(event: E, handler: PushHandler<E>): () => void {
    return onValidated<ServerPush<E>>(this.socket as Socket, event, serverPushes[event], handler);
  }

  /** The connection itself, for the group room's events (client/participant/group/groupSocket.ts). */
  get connection(): Socket {
    return this.socket as unknown as Socket;
  }

  close(): void {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.socket.disconnect();
    this.connectionListeners.clear();
  }

  /** One pending retry at a time; each one waits longer (reset on a successful connect). */
  private scheduleRetry(): void {
    if (this.closed || this.retryTimer) return;
    const delay = this.retryDelay(this.retryAttempt++);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.closed && !this.socket.connected) this.socket.connect();
    }, delay);
  }

  private setState(state: ConnectionState): void {
    if (this.state === 'unauthorized') return;
    this.state = state;
    for (const listener of this.connectionListeners) listener(state);
  }
}
