import { useEffect, useRef, useState } from 'react';
import type { ScreeningQuestion } from '../../../common/group';
import './group.css';

/**
 * The screening page of a group condition: its questions (group.screening), answered after consent and before the
 * lobby; the answers go with the lobby join and are final. Questions and options are rendered as text, never HTML.
 */
export function GroupScreening({ questions, onSubmit }: { questions: readonly ScreeningQuestion[]; onSubmit: (answers: Record<string, string>) => Promise<void> }) {
  const [answers, setAnswers] = useState<Record<string, string>>({});
  const [missing, setMissing] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const title = useRef<HTMLHeadingElement>(null);
  useEffect(() => title.current?.focus(), []);

  const submit = async () => {
    const unanswered = questions.filter((q) => answers[q.id] === undefined).map((q) => q.id);
    setMissing(unanswered);
    if (unanswered.length > 0) {
      document.getElementById(`screening-${unanswered[0]}`)?.querySelector('input')?.focus();
      return;
    }
    setSending(true);
    setError(null);
    try {
      await onSubmit(answers);
    } catch (e) {
      setError((e as Error).message);
      setSending(false);
    }
  };

  return (
    <section className="group-screening" aria-labelledby="screening-title">
      <h1 id="screening-title" tabIndex={-1} ref={title}>
        Before you join your group
      </h1>
      <p>Your answer decides which group you join. You cannot change it once you continue.</p>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        {questions.map((q) => {
          const invalid = missing.includes(q.id);
          const errorId = `screening-${q.id}-error`;
          return (
            <fieldset key={q.id} id={`screening-${q.id}`} className={invalid ? 'invalid' : undefined} aria-describedby={invalid ? errorId : undefined}>
              <legend>{q.text}</legend>
              {q.options.map((o) => (
                <label key={o.value} className="screening-option">
                  <input
                    type="radio"
                    name={`screening-${q.id}`}
                    value={o.value}
                    checked={answers[q.id] === o.value}
                    required
                    aria-invalid={invalid || undefined}
                    onChange={() => {
                      setAnswers((a) => ({ ...a, [q.id]: o.value }));
                      setMissing((m) => m.filter((id) => id !== q.id));
                    }}
                  />
                  <span>{o.label}</span>
                </label>
              ))}
              {invalid && (
                <p id={errorId} className="field-error">
                  Please choose an answer.
                </p>
              )}
            </fieldset>
          );
        })}
        {error && <p role="alert">{error}</p>}
        <button type="submit" disabled={sending}>
          {sending ? 'Joining…' : 'Continue to the waiting room'}
        </button>
      </form>
    </section>
  );
}
