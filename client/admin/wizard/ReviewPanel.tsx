import { useEffect, useRef, useState } from 'react';
import type { WizardReviewDetail, WizardReviewOutcome } from '../../../common/wizard';
import { CopyButton } from '../../ui/CopyButton';
import { AdminApiError } from '../api';
import { outcomeText } from './queueWording';
import { wizardApi } from './wizardApi';
import { waitLabel } from './waitLabel';

/**
 * One waiting reply: the transcript, the model's draft (streaming in), the reply editor and the actions. In a
 * review condition the editor starts as the draft (sending it changed is an edit); Replace starts it empty
 * (the researcher's own words); in a wizard condition every reply is the researcher's.
 */
export function ReviewPanel({
  detail,
  draft,
  serverNow,
  closed,
  onChanged,
  onError,
  onDone,
}: {
  detail: WizardReviewDetail;
  draft: string;
  serverNow: number;
  /** Set when the reply left the queue while open here: the editor keeps the text, the actions are off. */
  closed: WizardReviewOutcome | 'unknown' | null;
  onChanged: () => void;
  onError: (message: string | null) => void;
  /** The researcher's own send or discard ended the reply: close the panel. */
  onDone: () => void;
}) {
  const { item } = detail;
  const [text, setText] = useState(item.mode === 'review' ? draft : '');
  const [touched, setTouched] = useState(false);
  const [replacing, setReplacing] = useState(item.mode === 'wizard');
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const editor = useRef<HTMLTextAreaElement>(null);

  // The "still drafting" note is over once the draft is finished.
  useEffect(() => {
    if (item.draftDone) setNotice(null);
  }, [item.draftDone]);

  // Until the researcher types, the editor follows the draft as it streams in.
  useEffect(() => {
    if (!touched && !replacing) setText(draft);
  }, [draft, touched, replacing]);

  const act = async (fn: () => Promise<unknown>, ends = false) => {
    if (busy || closed) return;
    setBusy(true);
    onError(null);
    setNotice(null);
    try {
      await fn();
      if (ends) onDone();
      onChanged();
    } catch (e) {
      onError(e instanceof AdminApiError ? e.message : (e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const claim = () => act(() => wizardApi.claim(item.replyId));
  const release = () => act(() => wizardApi.release(item.replyId));
  const approve = () => {
    // Said here, in words, rather than sent to be refused: the draft is not finished yet.
    if (!item.draftDone) return setNotice('The model is still writing its draft. Approve it once it is finished, or edit it or write your own reply.');
    return act(() => wizardApi.send(item.replyId, { action: 'approve' }), true);
  };
  const send = () => act(() => wizardApi.send(item.replyId, { action: replacing ? 'replace' : 'edit', text }), true);
  const discard = () => act(() => wizardApi.discard(item.replyId), true);
  const useDraft = () => {
    setTouched(true);
    setText(draft);
    editor.current?.focus();
  };
  const replace = (with_ = '') => {
    setReplacing(true);
    setTouched(true);
    setText(with_);
    editor.current?.focus();
  };

  // Shortcuts work wherever the focus is on the console page (the queue, the editor, the page itself).
  const onKeyDown = (e: globalThis.KeyboardEvent) => {
    if (closed) return;
    const key = e.key.toLowerCase();
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void send();
    } else if (e.altKey && /^[1-9]$/.test(e.key)) {
      const canned = detail.cannedReplies[Number(e.key) - 1];
      if (canned) {
        e.preventDefault();
        replace(canned);
      }
    } else if (e.altKey && (key === 'a' || key === 'c' || key === 'd' || key === 'r')) {
      e.preventDefault();
      if (key === 'a' && item.mode === 'review') void approve();
      if (key === 'a' && item.mode === 'wizard' && detail.draftVisible) useDraft();
      if (key === 'c') void claim();
      if (key === 'd') void discard();
      if (key === 'r') replace();
    }
  };

  const keyHandler = useRef(onKeyDown);
  keyHandler.current = onKeyDown;
  useEffect(() => {
    const listener = (e: globalThis.KeyboardEvent) => keyHandler.current(e);
    window.addEventListener('keydown', listener);
    return () => window.removeEventListener('keydown', listener);
  }, []);

  const remaining = item.deadlineAt - serverNow;
  const otherHolds = item.claimed === 'other' || closed !== null;
  const shortcuts: Array<[string, string]> = [
    ...(item.claimed === null ? ([['Alt+C', 'claim']] as Array<[string, string]>) : []),
    ...(item.mode === 'review' ? ([['Alt+A', 'approve the draft']] as Array<[string, string]>) : detail.draftVisible ? ([['Alt+A', 'put the model’s draft in the editor']] as Array<[string, string]>) : []),
    ['Ctrl+Enter', 'send'],
    ...(item.mode === 'review' ? ([['Alt+R', 'replace']] as Array<[string, string]>) : []),
    ...(detail.cannedReplies.length > 0 ? ([['Alt+1…9', 'canned reply']] as Array<[string, string]>) : []),
    ['Alt+D', 'discard'],
  ];
  return (
    <section className="card wizard-review" aria-labelledby="wizard-review-title">
      <h2 id="wizard-review-title">Session {item.sessionId.slice(0, 8)}</h2>
      {closed !== null ? (
        <div className="wizard-closed" role="status" data-testid="wizard-closed">
          <p><strong>{outcomeText(closed === 'unknown' ? null : closed)}</strong></p>
          {text.trim() !== '' && <p>What you had written is kept below; copy it if you want to use it.</p>}
          <div className="wizard-actions">
            {text.trim() !== '' && <CopyButton text={text} label="Copy your text" />}
            <button type="button" className="secondary" onClick={onDone}>Close</button>
          </div>
        </div>
      ) : (
        <p className="wizard-timer" role="timer" aria-live="off" data-testid="wizard-timer">
          The participant has waited <strong>{waitLabel(serverNow - item.waitingSince)}</strong>;{' '}
          {remaining > 0 ? <>the {item.mode === 'review' ? 'draft' : 'holding message'} goes out in {waitLabel(remaining)}.</> : <>the fallback is going out.</>}
        </p>
      )}
      {closed === null && (
        <p className="hint wizard-shortcuts" data-testid="wizard-shortcuts">
          Shortcuts: {shortcuts.map(([k, what], i) => <span key={k}>{i > 0 ? ', ' : ''}<kbd>{k}</kbd> {what}</span>)}.
        </p>
      )}
      {closed === null && (
      <div className="wizard-claim">
        {item.claimed === 'you' ? (
          <><span>You hold this reply.</span> <button type="button" className="secondary" onClick={() => void release()} disabled={busy}>Release</button></>
        ) : otherHolds ? (
          <span role="status">Another researcher holds this reply.</span>
        ) : (
          <button type="button" onClick={() => void claim()} disabled={busy}>Claim</button>
        )}
      </div>
      )}
      <ol className="wizard-transcript" aria-label="Transcript">
        {detail.transcript.map((m, i) => (
          <li key={i} className={`wizard-line wizard-${m.role}`}>
            <span className="wizard-speaker">{m.role === 'user' ? 'Participant' : 'Assistant'}</span>
            <p className="wizard-text">{m.text || `(${m.status}, no text)`}</p>
          </li>
        ))}
      </ol>
      {detail.draftVisible && (
        <div className="wizard-draft">
          <h3>Model draft {item.draftDone ? '(finished)' : '(the model is still writing…)'}</h3>
          <p className="wizard-text" data-testid="wizard-draft">{draft || '…'}</p>
          {(item.mode === 'wizard' || replacing) && (
            <button type="button" className="secondary" onClick={useDraft} disabled={otherHolds || draft === ''}>
              Put the draft in the editor
            </button>
          )}
        </div>
      )}
      <label className="wizard-editor-label" htmlFor="wizard-editor">{replacing ? 'Your reply' : 'Reply (edit the draft)'}</label>
      <textarea
        id="wizard-editor"
        ref={editor}
        value={text}
        rows={6}
        disabled={item.claimed === 'other'}
        readOnly={closed !== null}
        onChange={(e) => {
          setTouched(true);
          setText(e.target.value);
        }}
      />
      {notice && <p className="wizard-notice" role="status" data-testid="wizard-notice">{notice}</p>}
      <div className="wizard-actions">
        {item.mode === 'review' && (
          <button type="button" onClick={() => void approve()} disabled={busy || otherHolds || !item.draftDone}>Approve draft</button>
        )}
        <button type="button" onClick={() => void send()} disabled={busy || otherHolds || text.trim() === ''}>
          {replacing ? 'Send reply' : 'Send edited draft'}
        </button>
        {item.mode === 'review' && !replacing && (
          <button type="button" className="secondary" onClick={() => replace()} disabled={otherHolds}>Replace</button>
        )}
        <button type="button" className="secondary danger" onClick={() => void discard()} disabled={busy || otherHolds}>Discard</button>
      </div>
      {detail.cannedReplies.length > 0 && (
        <div className="wizard-canned">
          <h3>Canned replies</h3>
          <ul>
            {detail.cannedReplies.map((c, i) => (
              <li key={i}>
                <button type="button" className="secondary" onClick={() => replace(c)} disabled={otherHolds}>
                  {i < 9 ? <kbd>Alt+{i + 1}</kbd> : null} {c}
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
