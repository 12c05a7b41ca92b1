import { io, type Socket } from 'socket.io-client';
import type { ClientEventName, ClientPayload, AckData } from '../../common/events';
import type { ErrorInfo } from '../../common/envelope';
import { REFUSAL_UNAUTHORIZED, retryDelayMs } from '../../common/reconnectPolicy';

/**
 * A participant's socket with at-least-once requests: `request()` waits until connected, emits, and
 * if the connection drops (or no ack arrives in time) before the ack, emits the SAME payload again
 * after reconnecting. The server is expected to make that safe (chat:send dedupes by clientId).
 */

export type RequestOutcome<E extends ClientEventName> =
  | { ok: true; data: AckData<E>; attempts: number; ackMs: number }
  | { ok: false; error: ErrorInfo; attempts: number; ackMs: number };

export class RequestGaveUp extends Error {}

export interface ReliableSocketOptions {
  url: string;
  token: string;
  /** Give up on one request after this long in total (across resends). */
  requestDeadlineMs?: number;
  /** Resend when no ack arrived within this long on a live connection. */
  ackTimeoutMs?: number;
  onAttempt?: (event: string, attempt: number) => void;
  onConnectionChange?: (connected: boolean, detail: string) => void;
}

export class ReliableSocket {
  readonly socket: Socket;
  private connectWaiters: Array<() => void> = [];
  private disconnectWaiters = new Set<() => void>();
  /** Increments on every (re)connect, so waiters can tell that a reconnect happened. */
  connectionEpoch = 0;
  closed = false;
  lastConnectError: string | null = null;
  /** Handshake refusals in a row (for the retry backoff). */
  private refusals = 0;

  constructor(private readonly options: ReliableSocketOptions) {
    this.socket = io(options.url, {
      auth: { token: options.token },
      transports: ['websocket'],
      forceNew: true,
      reconnection: true,
      reconnectionDelay: 150,
      reconnectionDelayMax: 2_000,
      randomizationFactor: 0.5,
      timeout: 10_000,
    });
    this.socket.on('connect', () => {
      this.connectionEpoch += 1;
      this.refusals = 0;
      options.onConnectionChange?.(true, `epoch ${this.connectionEpoch}`);
      const waiters = this.connectWaiters;
      this.connectWaiters = [];
      for (const w of waiters) w();
    });
    this.socket.on('disconnect', (reason) => {
      options.onConnectionChange?.(false, reason);
      for (const w of [...this.disconnectWaiters]) w();
      // The server closing the socket on purpose does not auto-reconnect in socket.io; we do.
      if (reason === 'io server disconnect' && !this.closed) this.socket.connect();
    });
    this.socket.on('connect_error', (err) => {
      this.lastConnectError = err.message;
      // A refusal by the server's middleware ('unavailable' while the database restarts, 'rate_limited', …) ends
      // socket.io's own reconnecting; retry with backoff like the participant page does (common/reconnectPolicy.ts).
      if (!this.socket.active && !this.closed && err.message !== REFUSAL_UNAUTHORIZED) {
        options.onConnectionChange?.(false, `refused: ${err.message}`);
        setTimeout(() => {
          if (!this.closed && !this.socket.connected) this.socket.connect();
        }, retryDelayMs(this.refusals++, { baseMs: 200, maxMs: 5_000 }));
      }
    });
  }

  get connected(): boolean {
    return this.socket.connected;
  }

  waitConnected(timeoutMs: number): Promise<void> {
    if (this.socket.connected) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.connectWaiters = this.connectWaiters.filter((w) => w !== done);
        reject(new RequestGaveUp(`not connected within ${timeoutMs} ms (last connect error: ${this.lastConnectError ?? 'none'})`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.connectWaiters.push(done);
    });
  }

  /** Emits once; resolves with the ack, or null if the connection dropped / the ack timed out first. */
  private emitOnce(event: string, payload: unknown, timeoutMs: number): Promise<unknown | null> {
    return new Promise((resolve) => {
      let settled = false;
      const finish = (value: unknown | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.disconnectWaiters.delete(onDisconnect);
        resolve(value);
      };
      const onDisconnect = () => finish(null);
      const timer = setTimeout(() => finish(null), timeoutMs);
      this.disconnectWaiters.add(onDisconnect);
      this.socket.emit(event, payload, (reply: unknown) => finish(reply));
    });
  }

  async request<E extends ClientEventName>(event: E, payload: ClientPayload<E>): Promise<RequestOutcome<E>> {
    return (await this.requestRaw(event, payload)) as RequestOutcome<E>;
  }

  /** Same as request() for any event name and payload (the fuzzer sends malformed ones). */
  async requestRaw(event: string, payload: unknown): Promise<RequestOutcome<ClientEventName>> {
    const deadline = performance.now() + (this.options.requestDeadlineMs ?? 120_000);
    for (let attempt = 1; ; attempt++) {
      const left = deadline - performance.now();
      if (left <= 0) throw new RequestGaveUp(`${event}: no ack after ${attempt - 1} attempts`);
      await this.waitConnected(left);
      this.options.onAttempt?.(event, attempt);
      const sentAt = performance.now();
      const reply = await this.emitOnce(event, payload, Math.min(this.options.ackTimeoutMs ?? 20_000, Math.max(1, left)));
      const ackMs = performance.now() - sentAt;
      if (reply === null) continue; // dropped or timed out: resend the same payload
      const envelope = reply as { ok?: unknown; data?: unknown; error?: ErrorInfo };
      if (envelope && envelope.ok === true) return { ok: true, data: envelope.data as never, attempts: attempt, ackMs };
      if (envelope && envelope.ok === false && envelope.error) return { ok: false, error: envelope.error, attempts: attempt, ackMs };
      return { ok: false, error: { code: 'internal', message: `malformed ack: ${JSON.stringify(reply).slice(0, 200)}` }, attempts: attempt, ackMs };
    }
  }

  close(): void {
    this.closed = true;
    this.socket.close();
  }
}
