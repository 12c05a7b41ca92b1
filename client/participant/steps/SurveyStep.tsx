import { useEffect, useId, useState } from 'react';
import type { SessionState } from '../../../common/session';
import { checkSurveyAnswers, type PublicSurveyItem, type SurveyAnswers } from '../../../common/survey';
import { actionMessageOf } from '../errorMessages';
import { SafeMarkdown } from '../chat/SafeMarkdown';
import { LikertItem } from '../survey/LikertItem';
import { ErrorAlert, FieldLabel } from '../../ui/formParts';

/** Answers in progress survive a reload (kept per session in sessionStorage; sent only on submit). */
function useStoredAnswers(sessionId: string) {
  const key = `tandem:survey:${sessionId}`;
  const [answers, setAnswers] = useState<SurveyAnswers>(() => {
    try {
      return JSON.parse(window.sessionStorage.getItem(key) ?? '{}') as SurveyAnswers;
    } catch {
      return {};
    }
  });
  useEffect(() => {
    try {
      window.sessionStorage.setItem(key, JSON.stringify(answers));
    } catch {
      /* storage unavailable */
    }
  }, [key, answers]);
  return [answers, setAnswers] as const;
}

const isRequired = (item: PublicSurveyItem) => item.kind === 'attention_check' || item.required;
const isEmpty = (value: SurveyAnswers[string] | undefined) => value === undefined || (typeof value === 'string' && value.trim() === '');

/** The post-task survey: Likert items as radio groups, free text, required checks before sending. */
export function SurveyStep({ state, onSubmit }: { state: SessionState; onSubmit: (answers: SurveyAnswers) => Promise<void> }) {
  const survey = state.survey;
  const [answers, setAnswers] = useStoredAnswers(state.sessionId);
  const [invalid, setInvalid] = useState<Set<string>>(new Set());
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  // Drop stale keys (e.g. from an older survey version) so the server never sees unknown items.
  const known = new Set(survey.items.map((i) => i.id));
  const cleaned: SurveyAnswers = Object.fromEntries(Object.entries(answers).filter(([id]) => known.has(id)));

  const setAnswer = (id: string, value: number | string) => {
    setAnswers((current) => ({ ...current, [id]: value }));
    setInvalid((current) => {
      if (!current.has(id)) return current;
      const next = new Set(current);
      next.delete(id);
      return next;
    });
  };

  const submit = async () => {
    const missing = survey.items.filter((item) => isRequired(item) && isEmpty(cleaned[item.id])).map((i) => i.id);
    if (missing.length > 0) {
      setInvalid(new Set(missing));
      setError(null);
      document.querySelector<HTMLElement>(`#item-${CSS.escape(missing[0]!)} input, #item-${CSS.escape(missing[0]!)} textarea`)?.focus();
      return;
    }
    const answersToSend = Object.fromEntries(Object.entries(cleaned).filter(([, v]) => !isEmpty(v)));
    const problem = checkSurveyAnswers(survey, answersToSend);
    if (problem) {
      setError(problem.message);
      return;
    }
    setError(null);
    setBusy(true);
    try {
      await onSubmit(answersToSend);
    } catch (err) {
      setError(`Your answers were not saved: ${actionMessageOf(err)}`);
      setBusy(false);
    }
  };

  return (
    <>
      <h1 tabIndex={-1}>{survey.title}</h1>
      {survey.intro && (
        <div className="card">
          <SafeMarkdown text={survey.intro} />
        </div>
      )}
      <form
        className="card"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <p className="hint">
          Questions marked <span className="required-mark">*</span> are required.
        </p>
        {survey.items.map((item) =>
          item.kind === 'text' ? (
            <FreeTextQuestion
              key={item.id}
              id={item.id}
              prompt={item.prompt}
              required={item.required}
              maxLength={item.max_length}
              value={typeof cleaned[item.id] === 'string' ? (cleaned[item.id] as string) : ''}
              invalid={invalid.has(item.id)}
              onChange={(value) => setAnswer(item.id, value)}
            />
          ) : (
            <LikertItem
              key={item.id}
              name={item.id}
              question={item.prompt}
              points={item.points}
              anchors={item.anchors}
              required={isRequired(item)}
              value={typeof cleaned[item.id] === 'number' ? (cleaned[item.id] as number) : undefined}
              invalid={invalid.has(item.id)}
              onChange={(value) => setAnswer(item.id, value)}
            />
          ),
        )}
        <ErrorAlert message={invalid.size > 0 ? `Please answer all required questions (${invalid.size} missing).` : null} />
        <ErrorAlert message={error} />
        <div className="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Saving…' : 'Submit the survey'}
          </button>
        </div>
      </form>
    </>
  );
}

function FreeTextQuestion(props: {
  id: string;
  prompt: string;
  required: boolean;
  maxLength: number;
  value: string;
  invalid: boolean;
  onChange: (value: string) => void;
}) {
  const inputId = useId();
  return (
    <div className="field" id={`item-${props.id}`}>
      <FieldLabel htmlFor={inputId} text={props.prompt} required={props.required} />
      <textarea
        id={inputId}
        name={props.id}
        rows={4}
        maxLength={props.maxLength}
        value={props.value}
        aria-invalid={props.invalid}
        aria-describedby={`${inputId}-count`}
        onChange={(event) => props.onChange(event.target.value)}
      />
      <span className="counter" id={`${inputId}-count`}>
        {props.value.length} / {props.maxLength} characters
      </span>
      {props.invalid && <p className="error">Please answer this question.</p>}
    </div>
  );
}
