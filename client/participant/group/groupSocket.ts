/**
 * The group room's events over the session's own socket (the server places it in the session's lobby or room),
 * speaking the group events of common/groupEvents.ts. Payloads are checked before they leave, acks
 * and pushes against their schemas; a malformed push is dropped.
 */
import type { Socket } from 'socket.io-client';
import { z } from 'zod';
import { Envelope } from '../../../common/envelope';
import { GroupView, groupClientEvents, groupServerPushes, type GroupClientEventName, type GroupPush, type GroupPushName } from '../../../common/groupEvents';

const acks: Record<GroupClientEventName, z.ZodType> = {
  'group:status': GroupView,
  'group:lobby:join': GroupView,
  'group:lobby:leave': GroupView,
  'group:send': z.object({ groupSeq: z.number() }),
  'group:history': z.object({ messages: z.array(groupServerPushes['group:message']) }),
  'group:typing': z.object({ typing: z.boolean() }),
  'group:doc:update': z.object({ seq: z.number() }),
};

export class GroupSocket {
  constructor(private readonly socket: Socket) {}

  emit<T>(event: GroupClientEventName, payload: unknown): Promise<T> {
    const checked = groupClientEvents[event].safeParse(payload);
    if (!checked.success) return Promise.reject(new Error(`${event}: ${checked.error.issues[0]?.message ?? 'invalid'}`));
    return new Promise<T>((resolve, reject) => {
      this.socket.timeout(20_000).emit(event, checked.data, (err: Error | null, reply: unknown) => {
        if (err) return reject(new Error('The server did not answer in time.'));
        const parsed = Envelope(acks[event]).safeParse(reply);
        if (!parsed.success) reject(new Error(`Unexpected reply to ${event}.`));
        else if (parsed.data.ok) resolve(parsed.data.data as T);
        else reject(new Error(parsed.data.error.message));
      });
    });
  }

  on<E extends GroupPushName>(event: E, handler: (payload: GroupPush<E>) => void): () => void {
    const listener = (payload: unknown) => {
      const parsed = groupServerPushes[event].safeParse(payload);
      if (parsed.success) handler(parsed.data as GroupPush<E>);
      else console.warn(`Dropped malformed ${event} push`, parsed.error.issues[0]);
    };
    this.socket.on(event as string, listener);
    return () => this.socket.off(event as string, listener);
  }

  onConnect(handler: () => void): () => void {
    this.socket.on('connect', handler);
    return () => this.socket.off('connect', handler);
  }

  get connected(): boolean {
    return this.socket.connected;
  }
}
