import type { ChatSendAck } from '../../common/events';
import type { ChatMessageView } from '../../common/session';
import { RequestError } from './errors';

/** A participant message not yet acknowledged by the server (i.e. not yet known to be committed). */
export interface PendingMessage {
  clientId: string;
  text: string;
  clientTs: number;
}

export interface ChatOutboxHooks {
  /** Sends one message (chat:send); the server stores a clientId once, so resending is safe. */
  send(message: PendingMessage): Promise<ChatSendAck>;
  isConnected(): boolean;
  /** The server committed the message. */
  onAck(ack: ChatSendAck): void;
  /** The server refused the message for good (e.g. too long, session over); it is dropped. */
  onRefused(message: PendingMessage, error: RequestError): void;
  /** The pending list changed (to re-render "sending…" bubbles). */
  onChange(pending: PendingMessage[]): void;
}

/** Errors after which the same message may succeed later: keep it and resend. */
const TRANSIENT = new Set(['disconnected', 'timeout', 'busy', 'rate_limited', 'internal']);

/**
 * Holds participant messages until the server acknowledges them and resends them after a reconnect
 * (or a page reload: the list is kept in localStorage). Each message keeps its clientId across
 * resends, so nothing is lost and nothing is stored twice. Messages go out one at a time, in order.
 */
export class ChatOutbox {
  private pending: PendingMessage[];
  private sending = false;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly storageKey: string,
    private readonly hooks: ChatOutboxHooks,
  ) {
    this.pending = readStored(storageKey);
  }

  list(): PendingMessage[] {
    return this.pending;
  }

  /** Queues a new message and sends it when possible. */
  add(text: string): PendingMessage {
    const message: PendingMessage = { clientId: crypto.randomUUID(), text, clientTs: Date.now() };
    this.pending = [...this.pending, message];
    this.changed();
    void this.flush();
    return message;
  }

  /** Drops messages the server already holds (their ack was lost, e.g. by a reload mid-send). */
  reconcile(stored: readonly ChatMessageView[]): void {
    const storedIds = new Set(stored.map((m) => m.clientId).filter((id): id is string => id !== null));
    const before = this.pending.length;
    this.pending = this.pending.filter((m) => !storedIds.has(m.clientId));
    if (this.pending.length !== before) this.changed();
  }

  /** Sends the queued messages in order; call on (re)connect and when a reply finishes. */
  async flush(): Promise<void> {
    if (this.sending || !this.hooks.isConnected()) return;
    this.sending = true;
    try {
      while (this.pending.length > 0 && this.hooks.isConnected()) {
        const message = this.pending[0]!;
        try {
          const ack = await this.hooks.send(message);
          this.remove(message.clientId);
          this.hooks.onAck(ack);
        } catch (error) {
          const failure = error instanceof RequestError ? error : new RequestError('internal', String(error));
          if (TRANSIENT.has(failure.code)) {
            // 'busy' clears when the reply in flight ends (flush is called then); others retry soon.
            if (failure.code !== 'busy') this.retrySoon();
            return;
          }
          this.remove(message.clientId);
          this.hooks.onRefused(message, failure);
        }
      }
    } finally {
      this.sending = false;
    }
  }

  dispose(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
  }

  private retrySoon(): void {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.flush();
    }, 2000);
  }

  private remove(clientId: string): void {
    this.pending = this.pending.filter((m) => m.clientId !== clientId);
    this.changed();
  }

  private changed(): void {
    try {
      if (this.pending.length === 0) window.localStorage.removeItem(this.storageKey);
      else window.localStorage.setItem(this.storageKey, JSON.stringify(this.pending));
    } catch {
      /* storage unavailable: the outbox still works in memory */
    }
    this.hooks.onChange(this.pending);
  }
}

function readStored(key: string): PendingMessage[] {
  try {
    const raw = window.localStorage.getItem(key);
    if (!raw) return [];
    const parsed: unknown = JSON.parse(raw);
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (m): m is PendingMessage =>
        !!m && typeof m === 'object' && typeof m.clientId === 'string' && typeof m.text === 'string' && typeof m.clientTs === 'number',
    );
  } catch {
    return [];
  }
}
