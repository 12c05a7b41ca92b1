/**
 * The two halves of a typed socket that both the participant socket (common/events.ts) and the admin
 * socket (common/admin.ts) share: an emit that validates the payload before sending and the ack
 * envelope after, and a subscription that delivers only pushes passing their schema.
 */
import type { Socket } from 'socket.io-client';
import type { z } from 'zod';
import { Envelope } from '../../common/envelope';
import { RequestError } from './errors';

export interface EventSpec {
  payload: z.ZodType;
  ack: z.ZodType;
}

// socket.io's typed emit/on cannot follow a generic event name; payloads and pushes are validated here.
interface UntypedSocket {
  timeout(ms: number): { emit(event: string, payload: unknown, ack: (err: Error | null, reply: unknown) => void): void };
  on(event: string, listener: (payload: unknown) => void): void;
  off(event: string, listener: (payload: unknown) => void): void;
  readonly connected: boolean;
}

/**
 * Sends `event` after checking `payload` against its schema and resolves with the ack data, or rejects
 * with a RequestError carrying the server's code and field. `timeoutMessage` is shown when no ack comes.
 */
export function emitValidated<T>(
  socket: Socket,
  event: string,
  spec: EventSpec,
  payload: unknown,
  options: { ackTimeoutMs: number; timeoutMessage: string },
): Promise<T> {
  const checked = spec.payload.safeParse(payload);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const field = issue?.path.map(String).join('.');
    return Promise.reject(new RequestError('invalid_input', `${event}: ${field ? `${field}: ` : ''}${issue?.message ?? 'invalid'}`, field));
  }
  const replySchema = Envelope(spec.ack);
  const untyped = socket as unknown as UntypedSocket;
  return new Promise<T>((resolve, reject) => {
    untyped.timeout(options.ackTimeoutMs).emit(event, checked.data, (err, reply) => {
      if (err) return reject(new RequestError(untyped.connected ? 'timeout' : 'disconnected', options.timeoutMessage));
      const parsed = replySchema.safeParse(reply);
      if (!parsed.success) reject(new RequestError('internal', `Unexpected reply to ${event}.`));
      else if (parsed.data.ok) resolve(parsed.data.data as T);
      else reject(new RequestError(parsed.data.error.code, parsed.data.error.message, parsed.data.error.field));
    });
  });
}

/** Subscribes to a push, dropping (and logging) payloads that fail `schema`; returns the unsubscribe function. */
export function onValidated<T>(socket: Socket, event: string, schema: z.ZodType, handler: (payload: T) => void): () => void {
  const listener = (payload: unknown) => {
    const parsed = schema.safeParse(payload);
    if (parsed.success) handler(parsed.data as T);
    else console.warn(`Dropped malformed ${event} push`, parsed.error.issues[0]);
  };
  const untyped = socket as unknown as UntypedSocket;
  untyped.on(event, listener);
  return () => untyped.off(event, listener);
}
