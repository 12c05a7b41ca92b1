import { describe, expect, it } from 'vitest';
import type { ChatMessageView, SessionState } from '../../../common/session';
import { initialLive, liveReducer } from './liveSession';

const baseState: SessionState = {
  sessionId: 's1',
  studyId: 'visualization',
  studyTitle: 'Study',
  step: 'workspace',
  status: 'active',
  isPilot: false,
  consent: { version: '1', text: 'ok' },
  task: { id: 't', title: 'T', instructions: 'Do it', materials: [], fields: [{ id: 'a', label: 'A', kind: 'text', required: true }] },
  assistant: { label: 'AI assistant', offline: false },
  limits: { maxMessageChars: 4000, maxUploadBytes: 1000, uploadTypes: ['image/png'] },
  deadline: null,
  serverNow: 0,
  messages: [],
  replyInFlight: null,
  draft: null,
  uploads: [],
  artifactVersions: [],
  survey: { id: 's', title: 'S', items: [] },
  surveySubmitted: false,
  completion: null,
};

const message = (id: string, role: 'user' | 'assistant', text: string, status: ChatMessageView['status'] = 'complete'): ChatMessageView => ({
  id,
  role,
  text,
  clientId: role === 'user' ? `client-${id}` : null,
  replyTo: role === 'assistant' ? 'u1' : null,
  status,
  error: status === 'complete' ? null : 'cut off',
  createdAt: 1,
});

describe('liveReducer', () => {
  it('appends streamed fragments to the reply announced by the send ack, then stores the finished reply once', () => {
    let live = initialLive(baseState, []);
    live = liveReducer(live, { type: 'sent', ack: { message: message('u1', 'user', 'hi'), replyId: 'r1', duplicate: false } });
    expect(live.streaming).toEqual({ replyId: 'r1', text: '' });
    live = liveReducer(live, { type: 'delta', delta: { replyId: 'r1', text: 'Hel' } });
    live = liveReducer(live, { type: 'delta', delta: { replyId: 'r1', text: 'lo' } });
    expect(live.streaming?.text).toBe('Hello');
    live = liveReducer(live, { type: 'done', message: message('r1', 'assistant', 'Hello') });
    live = liveReducer(live, { type: 'done', message: message('r1', 'assistant', 'Hello') });
    expect(live.streaming).toBeNull();
    expect(live.state.messages.map((m) => m.id)).toEqual(['u1', 'r1']);
  });

  it('a duplicate ack (resend) does not add the message twice, and a late ack does not restart a finished reply', () => {
    let live = initialLive(baseState, []);
    live = liveReducer(live, { type: 'sent', ack: { message: message('u1', 'user', 'hi'), replyId: 'r1', duplicate: false } });
    live = liveReducer(live, { type: 'done', message: message('r1', 'assistant', 'Hello') });
    live = liveReducer(live, { type: 'sent', ack: { message: message('u1', 'user', 'hi'), replyId: 'r1', duplicate: true } });
    expect(live.state.messages.map((m) => m.id)).toEqual(['u1', 'r1']);
    expect(live.streaming).toBeNull();
    live = liveReducer(live, { type: 'delta', delta: { replyId: 'r1', text: 'late' } });
    expect(live.streaming).toBeNull();
  });

  it('resumes a reply in flight from the snapshot after a reload, continuing with later fragments', () => {
    const state = { ...baseState, messages: [message('u1', 'user', 'hi')], replyInFlight: { replyId: 'r1', replyTo: 'u1', text: 'Hel' } };
    let live = initialLive(state, []);
    expect(live.streaming).toEqual({ replyId: 'r1', text: 'Hel' });
    live = liveReducer(live, { type: 'delta', delta: { replyId: 'r1', text: 'lo' } });
    expect(live.streaming?.text).toBe('Hello');
  });

  it('a failed reply stores the partial message, ends streaming and offers retry; retrying clears the error', () => {
    let live = initialLive(baseState, []);
    live = liveReducer(live, { type: 'sent', ack: { message: message('u1', 'user', 'hi'), replyId: 'r1', duplicate: false } });
    live = liveReducer(live, {
      type: 'failed',
      failure: { replyId: 'r1', message: 'The assistant stopped responding.', retryable: true, partial: message('r1', 'assistant', 'Hel', 'interrupted') },
    });
    expect(live.streaming).toBeNull();
    expect(live.chatError).toEqual({ message: 'The assistant stopped responding.', retryable: true });
    expect(live.state.messages.at(-1)?.status).toBe('interrupted');
    live = liveReducer(live, { type: 'retrying', replyId: 'r2' });
    expect(live.chatError).toBeNull();
    expect(live.streaming).toEqual({ replyId: 'r2', text: '' });
  });

  it("shows a message sent from another tab once, and this tab's own message once whether the push or the ack comes first", () => {
    // Another tab's message: only the push arrives, then the reply streams.
    let other = initialLive(baseState, []);
    other = liveReducer(other, { type: 'mirrored', message: message('u1', 'user', 'from tab 1') });
    other = liveReducer(other, { type: 'delta', delta: { replyId: 'r1', text: 'Hi' } });
    other = liveReducer(other, { type: 'done', message: message('r1', 'assistant', 'Hi') });
    expect(other.state.messages.map((m) => [m.id, m.text])).toEqual([
      ['u1', 'from tab 1'],
      ['r1', 'Hi'],
    ]);

    // The sending tab: its pending bubble, then the push (before the ack), then the ack.
    const pending = { clientId: 'client-u2', text: 'mine', clientTs: 1 };
    let own = initialLive(baseState, [pending]);
    own = liveReducer(own, { type: 'mirrored', message: message('u2', 'user', 'mine') });
    expect(own.pending).toEqual([]);
    own = liveReducer(own, { type: 'sent', ack: { message: message('u2', 'user', 'mine'), replyId: 'r2', duplicate: false } });
    own = liveReducer(own, { type: 'mirrored', message: message('u2', 'user', 'mine') });
    expect(own.state.messages.map((m) => m.id)).toEqual(['u2']);
    expect(own.streaming).toEqual({ replyId: 'r2', text: '' });
  });
});
