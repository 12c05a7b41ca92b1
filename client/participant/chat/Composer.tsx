import { useEffect, useId, useState, type KeyboardEvent } from 'react';
import { touchKeyboard } from './seatWording';

interface ComposerProps {
  /** The box's visible label: who the message goes to. */
  label: string;
  maxLength: number;
  /** True while a reply streams or a send is in flight: sending is paused, typing is not. */
  busy: boolean;
  onSend: (text: string) => void;
  onPaste?: (length: number) => void;
  /** A message the server refused for good: put back in the box (when it is empty) so the typed words are not lost. */
  restore?: string | undefined;
}

/** Chat input: Enter sends, Shift+Enter adds a line; a visible counter enforces the length limit. */
export function Composer({ label, maxLength, busy, onSend, onPaste, restore }: ComposerProps) {
  const [text, setText] = useState('');
  const inputId = useId();
  const counterId = useId();
  useEffect(() => {
    if (restore) setText((current) => (current === '' ? restore : current));
  }, [restore]);
  const trimmed = text.trim();
  const tooLong = text.length > maxLength;
  const canSend = !busy && trimmed.length > 0 && !tooLong;

  const send = () => {
    if (!canSend) return;
    onSend(trimmed);
    setText('');
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  };

  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      <label htmlFor={inputId}>{label}</label>
      <textarea
        id={inputId}
        value={text}
        rows={3}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
        onPaste={(event) => onPaste?.(event.clipboardData.getData('text').length)}
        aria-describedby={counterId}
        aria-invalid={tooLong}
        placeholder={touchKeyboard() ? 'Type a message, then press Send.' : 'Type a message. Enter sends, Shift+Enter adds a line.'}
      />
      <div className="composer-footer">
        <span id={counterId} className={tooLong ? 'counter over' : 'counter'}>
          {text.length} / {maxLength} characters
        </span>
        {tooLong && (
          <span role="alert" className="counter over">
            Too long: please shorten by {text.length - maxLength}.
          </span>
        )}
        {busy && trimmed.length > 0 && <span className="composer-wait">Wait for the reply (or press Stop) to send.</span>}
        <button type="submit" disabled={!canSend}>
          Send
        </button>
      </div>
    </form>
  );
}
