import { memo } from 'react';
import type { ChatMessageView } from '../../../common/session';
import { SafeMarkdown } from './SafeMarkdown';

const STATUS_NOTES: Partial<Record<ChatMessageView['status'], string>> = {
  stopped: 'You stopped this reply.',
  interrupted: 'This reply was cut off.',
  error: 'No reply arrived.',
};

/** Code (fenced or inline) or a table in what the participant typed: shown formatted, as the assistant's are. */
const FORMATTED = /```|`[^`\n]+`|^\s*\|.*\|\s*$/m;

/** What a reply's note says: a reply that ended with no text and a reason was not stopped by the participant. */
function noteOf(status: ChatMessageView['status'] | undefined, text: string, error: string | null | undefined): string | undefined {
  if (status === 'stopped' && text === '' && error) return 'No reply was sent to this message.';
  return status ? STATUS_NOTES[status] : undefined;
}

/**
 * One chat message. Participant text is shown as typed; assistant text as safe markdown.
 * Memoised: while a reply streams only its own bubble re-renders, not the whole history.
 */
export const MessageBubble = memo(function MessageBubble({
  role,
  text,
  assistantLabel,
  status,
  error,
  pending,
  streaming,
}: {
  role: ChatMessageView['role'];
  text: string;
  assistantLabel: string;
  status?: ChatMessageView['status'];
  error?: string | null;
  pending?: boolean;
  streaming?: boolean;
}) {
  const failed = status === 'interrupted' || status === 'error';
  const classes = ['message', role, pending ? 'pending' : '', failed ? 'failed' : ''].filter(Boolean).join(' ');
  const note = noteOf(status, text, error);
  return (
    <li className={classes} data-status={streaming ? 'streaming' : pending ? 'pending' : status}>
      <div className="who">{role === 'user' ? 'You' : assistantLabel}</div>
      {role === 'user' ? FORMATTED.test(text) ? <SafeMarkdown text={text} /> : <div className="text">{text}</div> : text ? <SafeMarkdown text={text} /> : null}
      {streaming && !text && <div className="typing">{assistantLabel} is writing…</div>}
      {pending && <div className="note">Sending…</div>}
      {note && (
        // The reason (error) is shown once, beside the Retry button, for the latest reply; older failed
        // replies keep it as a tooltip.
        <div className={failed ? 'note error' : 'note'} title={error ?? undefined} data-testid="reply-note">
          {note}
        </div>
      )}
    </li>
  );
});
