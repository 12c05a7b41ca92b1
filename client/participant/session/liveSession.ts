import type { ChatSendAck, ChatDelta, ChatError } from '../../../common/events';
import type { ChatMessageView, SessionState } from '../../../common/session';
import type { PendingMessage } from '../../socket/chatOutbox';

/**
 * The participant's session as rendered: the server's snapshot plus what streams in between
 * snapshots (reply text, committed messages) and what the client holds (unacknowledged messages).
 */
export interface LiveSession {
  state: SessionState;
  /** The reply being generated, with the text so far. */
  streaming: { replyId: string; text: string } | null;
  /** The last reply failure, shown with a Retry button until the next reply starts. */
  chatError: { message: string; retryable: boolean; unsentText?: string } | null;
  pending: PendingMessage[];
}

export type LiveAction =
  | { type: 'snapshot'; state: SessionState }
  | { type: 'pending'; pending: PendingMessage[] }
  | { type: 'sent'; ack: ChatSendAck }
  /** A participant message stored from any tab of the session (chat:message push). */
  | { type: 'mirrored'; message: ChatMessageView }
  | { type: 'delta'; delta: ChatDelta }
  | { type: 'done'; message: ChatMessageView }
  | { type: 'failed'; failure: ChatError }
  | { type: 'retrying'; replyId: string }
  /** `unsentText`: a message the server refused for good (e.g. the message limit), given back to the composer. */
  | { type: 'chatError'; message: string; retryable: boolean; unsentText?: string };

function upsert(messages: ChatMessageView[], message: ChatMessageView): ChatMessageView[] {
  const index = messages.findIndex((m) => m.id === message.id);
  if (index === -1) return [...messages, message];
  const copy = messages.slice();
  copy[index] = message;
  return copy;
}

const withMessages = (live: LiveSession, messages: ChatMessageView[]): LiveSession => ({
  ...live,
  state: { ...live.state, messages },
});

export function initialLive(state: SessionState, pending: PendingMessage[]): LiveSession {
  return liveReducer({ state, streaming: null, chatError: null, pending }, { type: 'snapshot', state });
}

export function liveReducer(live: LiveSession, action: LiveAction): LiveSession {
  switch (action.type) {
    case 'snapshot': {
      const flight = action.state.replyInFlight;
      return {
        ...live,
        state: action.state,
        // The snapshot holds the reply text so far; later deltas continue from it.
        streaming: flight ? { replyId: flight.replyId, text: flight.text } : null,
      };
    }
    case 'pending':
      return { ...live, pending: action.pending };
    case 'sent': {
      const next = withMessages(live, upsert(live.state.messages, action.ack.message));
      const { replyId } = action.ack;
      const alreadyDone = replyId !== null && next.state.messages.some((m) => m.id === replyId);
      const streaming =
        replyId === null || alreadyDone ? live.streaming : live.streaming?.replyId === replyId ? live.streaming : { replyId, text: '' };
      return { ...next, streaming, chatError: null };
    }
    case 'mirrored': {
      const { message } = action;
      const next = withMessages(live, upsert(live.state.messages, message));
      // This tab's own message may still sit in the outbox when the push beats the ack: show it once.
      const pending = message.clientId === null ? live.pending : live.pending.filter((m) => m.clientId !== message.clientId);
      return { ...next, pending, chatError: null };
    }
    case 'delta': {
      const { replyId, text } = action.delta;
      if (live.streaming?.replyId === replyId) return { ...live, streaming: { replyId, text: live.streaming.text + text } };
      if (live.state.messages.some((m) => m.id === replyId)) return live; // late delta of a finished reply
      return { ...live, streaming: { replyId, text }, chatError: null };
    }
    case 'done': {
      const next = withMessages(live, upsert(live.state.messages, action.message));
      return { ...next, streaming: live.streaming?.replyId === action.message.id ? null : live.streaming };
    }
    case 'failed': {
      const { failure } = action;
      const next = failure.partial ? withMessages(live, upsert(live.state.messages, failure.partial)) : live;
      return {
        ...next,
        streaming: live.streaming?.replyId === failure.replyId ? null : live.streaming,
        chatError: { message: failure.message, retryable: failure.retryable },
      };
    }
    case 'retrying':
      return { ...live, streaming: { replyId: action.replyId, text: '' }, chatError: null };
    case 'chatError':
      return { ...live, chatError: { message: action.message, retryable: action.retryable, ...(action.unsentText !== undefined ? { unsentText: action.unsentText } : {}) } };
  }
}
