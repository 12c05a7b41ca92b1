import { describe, expect, it } from 'vitest';
import type { ChatSendAck } from '../../common/events';
import { ChatOutbox, type PendingMessage } from './chatOutbox';
import { RequestError } from './errors';

function ackFor(message: PendingMessage): ChatSendAck {
  return {
    message: { id: `m-${message.clientId}`, role: 'user', text: message.text, clientId: message.clientId, replyTo: null, status: 'complete', error: null, createdAt: 1 },
    replyId: null,
    duplicate: false,
  };
}

/** An outbox whose transport answers from a queue of outcomes; records every send attempt. */
function harness(outcomes: ('ok' | 'disconnected' | 'busy' | 'too_large')[]) {
  const attempts: PendingMessage[] = [];
  const acks: ChatSendAck[] = [];
  const refused: string[] = [];
  let connected = true;
  const outbox = new ChatOutbox('test-outbox', {
    send: async (message) => {
      attempts.push(message);
      const outcome = outcomes.shift() ?? 'ok';
      if (outcome === 'ok') return ackFor(message);
      throw new RequestError(outcome, outcome);
    },
    isConnected: () => connected,
    onAck: (ack) => acks.push(ack),
    onRefused: (_m, error) => refused.push(error.code),
    onChange: () => undefined,
  });
  return { outbox, attempts, acks, refused, setConnected: (value: boolean) => (connected = value) };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('ChatOutbox', () => {
  it('keeps a message through a lost connection and resends it with the same clientId', async () => {
    const h = harness(['disconnected', 'ok']);
    h.outbox.add('hello');
    await settle();
    expect(h.outbox.list()).toHaveLength(1);
    await h.outbox.flush(); // as on reconnect
    expect(h.attempts).toHaveLength(2);
    expect(h.attempts[0]!.clientId).toBe(h.attempts[1]!.clientId);
    expect(h.attempts[0]!.clientTs).toBe(h.attempts[1]!.clientTs);
    expect(h.acks).toHaveLength(1);
    expect(h.outbox.list()).toEqual([]);
    h.outbox.dispose();
  });

  it('waits while disconnected and sends queued messages in order once connected', async () => {
    const h = harness([]);
    h.setConnected(false);
    h.outbox.add('first');
    h.outbox.add('second');
    await settle();
    expect(h.attempts).toEqual([]);
    h.setConnected(true);
    await h.outbox.flush();
    expect(h.attempts.map((m) => m.text)).toEqual(['first', 'second']);
    expect(new Set(h.attempts.map((m) => m.clientId)).size).toBe(2);
  });

  it('drops messages the server already stored (ack lost by a reload) without sending them again', async () => {
    const h = harness([]);
    h.setConnected(false);
    const pending = h.outbox.add('hello');
    h.outbox.reconcile([{ ...ackFor(pending).message }]);
    h.setConnected(true);
    await h.outbox.flush();
    expect(h.attempts).toEqual([]);
    expect(h.outbox.list()).toEqual([]);
  });

  it('holds a message while the assistant is busy, and gives up on one the server refuses for good', async () => {
    const h = harness(['busy', 'too_large']);
    h.outbox.add('queued');
    await settle();
    expect(h.outbox.list()).toHaveLength(1);
    await h.outbox.flush(); // as after chat:done
    expect(h.refused).toEqual(['too_large']);
    expect(h.outbox.list()).toEqual([]);
  });
});
