import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { WizardDraftPush, WizardQueue, WizardReviewDetail, WizardReviewOutcome } from '../../../common/wizard';
import { AdminLink, PageHeading, pageTitle } from '../AdminLink';
import { ReviewPanel } from './ReviewPanel';
import { wizardApi } from './wizardApi';
import { useWizardFeed } from './useWizardFeed';
import { waitLabel } from './waitLabel';
import { itemStatus, modeLabel, researcherMessage } from './queueWording';
import { GroupWizardPanel } from './GroupWizardPanel';
import './wizard.css';

/**
 * The wizard console of a study (/admin/studies/:id/wizard): the queue of participants waiting for a reply
 * (with how long each has waited), and the selected reply — transcript, the model's draft as it streams,
 * approve / edit / replace / discard, canned replies — with keyboard shortcuts. One researcher holds a reply
 * at a time (a claim); the others see it claimed. All text is rendered as text, never as HTML.
 */
export function WizardConsole({ studyId }: { studyId: string }) {
  const [queue, setQueue] = useState<WizardQueue | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [detail, setDetail] = useState<WizardReviewDetail | null>(null);
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | null>(null);
  /** The open reply left the queue (answered elsewhere, Stop, timeout): the panel stays, with what the researcher typed. */
  const [closed, setClosed] = useState<WizardReviewOutcome | 'unknown' | null>(null);
  const [now, setNow] = useState(Date.now());
  const offset = useRef(0); // server clock − browser clock
  const selectedRef = useRef<string | null>(null);
  selectedRef.current = selected;

  useEffect(() => {
    document.title = pageTitle('Wizard console', studyId);
    const tick = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(tick);
  }, [studyId]);

  const markClosed = useCallback(async (replyId: string) => {
    const outcome = await wizardApi.outcome(replyId).catch(() => null);
    if (selectedRef.current === replyId) setClosed(outcome ?? 'unknown');
  }, []);

  const loadDetail = useCallback(async (replyId: string) => {
    try {
      const d = await wizardApi.review(replyId);
      offset.current = d.serverNow - Date.now();
      if (selectedRef.current !== replyId) return;
      setDetail(d);
      // The snapshot and the pushed fragments are prefixes of one draft: a snapshot taken before fragments that
      // already arrived (or before the final push) must not cut the draft back.
      const snapshot = d.draft ?? '';
      setDraft((prev) => (snapshot.length >= prev.length ? snapshot : prev));
    } catch {
      // Answered or discarded meanwhile: it left the queue.
      if (selectedRef.current === replyId) void markClosed(replyId);
    }
  }, [markClosed]);

  const loadQueue = useCallback(async () => {
    try {
      const q = await wizardApi.queue(studyId);
      offset.current = q.serverNow - Date.now();
      setQueue(q);
      setError(null);
      const current = selectedRef.current;
      if (current && !q.items.some((i) => i.replyId === current)) void markClosed(current);
      else if (current) void loadDetail(current);
    } catch (e) {
      setError(researcherMessage((e as Error).message));
    }
  }, [studyId, loadDetail, markClosed]);

  useEffect(() => void loadQueue(), [loadQueue]);
  useWizardFeed(studyId, () => void loadQueue(), (d: WizardDraftPush) => {
    if (d.replyId !== selectedRef.current) return;
    setDraft((prev) => (d.done ? d.text : prev + d.text));
    if (d.done) void loadQueue(); // the item and the panel say the draft is ready
  });

  const open = (replyId: string) => {
    setSelected(replyId);
    setDetail(null);
    setClosed(null);
    setDraft('');
    void loadDetail(replyId);
  };

  // j/k (or the arrow keys) move through the queue when the focus is not in the editor.
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if ((e.target as HTMLElement).tagName === 'TEXTAREA' || !queue || queue.items.length === 0) return;
    const i = queue.items.findIndex((item) => item.replyId === selected);
    const step = e.key === 'j' || e.key === 'ArrowDown' ? 1 : e.key === 'k' || e.key === 'ArrowUp' ? -1 : 0;
    if (step === 0) return;
    e.preventDefault();
    const next = queue.items[Math.min(queue.items.length - 1, Math.max(0, i + step))];
    if (next) open(next.replyId);
  };

  const serverNow = now + offset.current;
  return (
    <div className="wizard-console" onKeyDown={onKeyDown}>
      <p className="admin-back"><AdminLink to={`/admin/studies/${studyId}`}>← study</AdminLink></p>
      <PageHeading>Wizard console</PageHeading>
      <p className="hint">
        Participants of <strong>{studyId}</strong> waiting for a reply. <kbd>j</kbd>/<kbd>k</kbd> (or the arrow keys) move through the queue; the
        open reply lists its own shortcuts.
      </p>
      {error && <p className="error-box" role="alert">{error}</p>}
      <div className="wizard-layout">
        <section className="card wizard-queue" aria-labelledby="wizard-queue-title">
          <h2 id="wizard-queue-title">Waiting ({queue?.items.length ?? 0})</h2>
          {queue && queue.items.length === 0 && <p className="hint">Nobody is waiting.</p>}
          <ul>
            {queue?.items.map((item) => (
              <li key={item.replyId}>
                <button
                  type="button"
                  className={`wizard-queue-item${item.replyId === selected ? ' selected' : ''}`}
                  aria-current={item.replyId === selected ? 'true' : undefined}
                  data-testid="wizard-queue-item"
                  onClick={() => open(item.replyId)}
                >
                  <span className="wizard-queue-session">
                    Session {item.sessionId.slice(0, 8)}
                    {item.replyId === selected && <span className="visually-hidden"> (open)</span>}
                  </span>
                  {item.preview && <span className="wizard-queue-preview" data-testid="wizard-preview">“{item.preview}”</span>}
                  <span className="wizard-queue-mode">{modeLabel(item.mode)} · condition {item.conditionId}</span>
                  <span className="wizard-queue-wait" data-testid="wizard-wait">Waiting {waitLabel(serverNow - item.waitingSince)}</span>
                  <span className="wizard-queue-claim" data-testid="wizard-item-status">{itemStatus(item)}</span>
                </button>
              </li>
            ))}
          </ul>
        </section>
        {selected && detail ? (
          <ReviewPanel
            key={selected}
            detail={detail}
            draft={draft}
            serverNow={serverNow}
            closed={closed}
            onChanged={() => void loadQueue()}
            onError={(m) => setError(m === null ? null : researcherMessage(m))}
            onDone={() => {
              setSelected(null);
              setDetail(null);
              setClosed(null);
            }}
          />
        ) : (
          <section className="card wizard-review">
            <p className="hint">{selected ? 'Loading…' : 'Choose a waiting participant.'}</p>
          </section>
        )}
      </div>
      <GroupWizardPanel studyId={studyId} />
    </div>
  );
}
