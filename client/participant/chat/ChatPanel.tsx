import { useLayoutEffect, useRef, useState } from 'react';
import { actionMessageOf } from '../errorMessages';
import type { LiveSession } from '../session/liveSession';
import type { SessionActions } from '../session/useParticipantSession';
import { parseSeatReply } from '../../../common/seatReply';
import { Composer } from './Composer';
import { MessageBubble } from './MessageBubble';
import { SeatReply } from './SeatReply';
import { chatWording, touchKeyboard } from './seatWording';

/**
 * The chat: an aria-live log of messages (busy while a reply streams, so screen readers announce
 * the finished reply once instead of every token), Stop while streaming, Retry after a failure.
 */
export function ChatPanel({ live, actions }: { live: LiveSession; actions: SessionActions }) {
  const { state, streaming, pending, chatError } = live;
  const wording = chatWording(state.assistant);
  const label = wording.speaker;
  const seat = state.assistant.seat !== undefined;
  const [actionError, setActionError] = useState<string | null>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const stickToBottom = useRef(true);

  const last = state.messages.at(-1);
  const lastFailed = last?.role === 'assistant' && (last.status === 'interrupted' || last.status === 'error');
  const unanswered = last?.role === 'user' && !streaming && pending.length === 0;
  const canRetry = !streaming && (lastFailed || unanswered || chatError?.retryable === true);
  // A reply closed with no text for a reason other than the participant's Stop (a researcher had no answer): say
  // so, and offer to send the message again (a stopped reply counts as answered, so Retry does not apply).
  const unsent = !streaming && pending.length === 0 && last?.role === 'assistant' && last.status === 'stopped' && last.text === '' && last.error !== null;
  const unsentText = unsent ? state.messages.find((m) => m.id === last.replyTo)?.text ?? null : null;
  const shownError = chatError?.message ?? (lastFailed ? last.error ?? 'The reply failed.' : unanswered ? 'No reply arrived yet.' : null);

  useLayoutEffect(() => {
    const list = listRef.current;
    if (list && stickToBottom.current) list.scrollTop = list.scrollHeight;
  }, [state.messages.length, streaming?.text, pending.length, shownError]);

  const run = async (action: () => Promise<void>) => {
    setActionError(null);
    try {
      await action();
    } catch (error) {
      setActionError(actionMessageOf(error));
    }
  };

  return (
    <section className="card chat" aria-labelledby="chat-heading">
      <h2 id="chat-heading">{wording.heading}</h2>
      {state.assistant.offline && <p className="hint">Demo assistant: it runs without an AI service and gives simple, scripted answers.</p>}
      <div
        ref={listRef}
        className="messages"
        role="log"
        aria-live="polite"
        aria-label="Conversation"
        aria-busy={streaming !== null}
        tabIndex={0}
        onScroll={(event) => {
          const el = event.currentTarget;
          stickToBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
        }}
      >
        <ol className="message-list">
          {state.messages.length === 0 && pending.length === 0 && !streaming && (
            <li className="chat-empty">
              {wording.empty} {touchKeyboard() ? 'Press Send to send.' : 'Enter sends, Shift+Enter adds a line.'}
            </li>
          )}
          {state.messages.map((message, i) => {
            // A teamwork seat's reply is shown as its parts (round, each speaker); anything else as one bubble.
            const parts = seat && message.role === 'assistant' && message.text ? parseSeatReply(message.text) : null;
            if (parts) return <SeatReply key={message.id} parts={parts} latest={i === state.messages.length - 1} />;
            return (
            <MessageBubble
              key={message.id}
              role={message.role}
              text={message.text}
              assistantLabel={label}
              status={message.status}
              error={message.error}
            />
            );
          })}
          {pending.map((message) => (
            <MessageBubble key={message.clientId} role="user" text={message.text} assistantLabel={label} pending />
          ))}
          {streaming && <MessageBubble key={streaming.replyId} role="assistant" text={streaming.text} assistantLabel={label} streaming />}
        </ol>
      </div>
      {(shownError || actionError) && (
        <div className="error-box chat-error" role="alert">
          <span>{actionError ?? shownError}</span>
          {canRetry && (
            <button type="button" className="secondary" onClick={() => void run(actions.retryReply)}>
              Retry
            </button>
          )}
        </div>
      )}
      {unsent && !shownError && !actionError && (
        <div className="error-box chat-error" role="status" data-testid="chat-unsent">
          <span>No reply was sent to your last message. You can send it again, or write a new one.</span>
          {unsentText && (
            <button type="button" className="secondary" onClick={() => actions.sendChat(unsentText)}>
              Send it again
            </button>
          )}
        </div>
      )}
      {streaming && (
        <div className="actions">
          <button type="button" className="danger" onClick={() => void run(actions.stopReply)}>
            Stop the reply
          </button>
        </div>
      )}
      <Composer
        label={wording.composerLabel}
        restore={chatError?.unsentText}
        maxLength={state.limits.maxMessageChars}
        busy={streaming !== null || pending.length > 0}
        onSend={actions.sendChat}
        onPaste={(chars) => actions.telemetry({ kind: 'paste', chars, target: 'chat' })}
      />
    </section>
  );
}
