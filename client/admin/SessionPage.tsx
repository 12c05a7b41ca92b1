import { useEffect, useMemo, useState } from 'react';
import type { SessionDetail, TimelineEvent } from '../../common/admin';
import { modelLabel, ReplyProvenance } from './ReplyProvenance';
import { SafeMarkdown } from '../participant/chat/SafeMarkdown';
import { adminApi } from './api';
import { AdminLink, PageHeading, pageTitle } from './AdminLink';
import { ArtifactVersions, JudgeSamples, SurveyAnswers } from './SessionSections';
import { IntegritySection } from './IntegritySection';
import { formatClock, formatDuration, formatLatency, formatSigned, formatTime, outcomeLabel } from './format';

/** Step changes from the trajectory, in order, starting at consent. */
function stepChanges(timeline: TimelineEvent[], start: number): { at: number; step: string }[] {
  const changes = [{ at: start, step: 'consent' }];
  for (const e of timeline) {
    if (e.type === 'step.changed' && e.payload && typeof e.payload === 'object' && 'to' in e.payload) {
      changes.push({ at: e.serverTs, step: String((e.payload as { to: unknown }).to) });
    }
  }
  return changes;
}

/** The step a session was at, at time `t`. */
function stepAt(changes: { at: number; step: string }[], t: number): string {
  let step = changes[0]?.step ?? 'consent';
  for (const c of changes) if (c.at <= t) step = c.step;
  return step;
}

/**
 * One session: the transcript with a replay slider along its time line, artifact versions, survey answers,
 * judge samples and Pz. Participant text is rendered as plain text (React escapes it); assistant replies
 * as the participant saw them, through the same SafeMarkdown (never raw HTML), or as raw text on request.
 */
export function SessionPage({ sessionId }: { sessionId: string }) {
  const [detail, setDetail] = useState<SessionDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [replayAt, setReplayAt] = useState<number | null>(null);
  // Assistant replies render as the participant saw them (safe markdown); the toggle shows the raw text.
  const [rawText, setRawText] = useState(false);
  const running = detail?.session.status === 'active';

  useEffect(() => {
    document.title = pageTitle(`Session ${sessionId.slice(0, 8)}`);
  }, [sessionId]);
  useEffect(() => {
    let cancelled = false;
    const load = () =>
      adminApi.session(sessionId).then(
        (d) => !cancelled && setDetail(d),
        (e: Error) => !cancelled && setError(e.message),
      );
    void load();
    // A running session keeps changing; a finished one only when it is judged.
    const timer = setInterval(() => void load(), running === false ? 15_000 : 3000);
    return () => {
      cancelled = true;
      clearInterval(timer);
    };
  }, [sessionId, running]);

  const range = useMemo(() => {
    if (!detail) return null;
    const start = detail.session.createdAt;
    const end = Math.max(start, ...detail.timeline.map((e) => e.serverTs));
    return { start, end };
  }, [detail]);
  const changes = useMemo(() => (detail && range ? stepChanges(detail.timeline, range.start) : []), [detail, range]);

  if (error) return <p className="error-box" role="alert">{error}</p>;
  if (!detail || !range) return <p className="page-status" role="status">Loading…</p>;

  const t = replayAt ?? range.end;
  const shown = detail.transcript.filter((m) => m.createdAt <= t);
  const s = detail.session;
  const tokens = (role: 'user' | 'assistant') => detail.transcript.filter((m) => m.role === role).reduce((a, m) => a + m.tokens, 0);
  const stepSize = Math.max(1, Math.round((range.end - range.start) / 500));

  return (
    <>
      <p className="admin-back">
        <AdminLink to={`/admin/studies/${s.studyId}`}>← study {s.studyId}</AdminLink>
      </p>
      <PageHeading className="admin-study-title">
        Session <span className="admin-id">{s.id.slice(0, 8)}</span>
        {s.isPilot && <span className="status-badge status-pilot">pilot</span>}
      </PageHeading>
      <section className="card" aria-label="Session facts">
        <dl className="admin-facts admin-facts-2col">
          <div><dt>session id</dt><dd><code>{s.id}</code></dd></div>
          <div><dt>task / condition</dt><dd>{s.taskId} / {s.conditionId}</dd></div>
          <div><dt>outcome</dt><dd data-testid="session-status">{outcomeLabel(s.status)}{s.isPilot ? ' (pilot)' : ''}</dd></div>
          <div><dt>step</dt><dd>{s.step}</dd></div>
          <div><dt>started</dt><dd>{formatTime(s.createdAt)}</dd></div>
          <div><dt>submitted</dt><dd>{s.submittedAt === null ? 'not yet' : `${formatClock(s.submittedAt, s.createdAt)} (after ${formatDuration(s.submittedAt - (s.consentedAt ?? s.createdAt))})`}</dd></div>
          <div><dt>messages</dt><dd>{detail.transcript.length} ({tokens('user')} participant + {tokens('assistant')} assistant tokens)</dd></div>
          <div><dt>quality Q</dt><dd>{detail.judge.quality ?? 'not judged'}{detail.judge.quality !== null && <span className="hint"> (1–5, median of the judge samples)</span>}</dd></div>
          <div>
            <dt><abbr title="collaborative productivity: z(Q) − z(C) within the task">Pz</abbr></dt>
            <dd>{detail.pz === null ? (s.isPilot ? 'not computed for pilot sessions' : 'after judging') : formatSigned(detail.pz)}</dd>
          </div>
        </dl>
      </section>

      <section className="card" aria-labelledby="transcript-title">
        <h2 id="transcript-title">Transcript</h2>
        <div className="replay">
          <label htmlFor="replay">Replay</label>
          <input
            id="replay"
            type="range"
            list="replay-steps"
            min={range.start}
            max={range.end}
            step={stepSize}
            value={t}
            onChange={(e) => setReplayAt(Number(e.target.value))}
            aria-valuetext={`${formatClock(t, range.start)}, step ${stepAt(changes, t)}, ${shown.length} of ${detail.transcript.length} messages`}
          />
          <datalist id="replay-steps">
            {changes.map((c) => <option key={`${c.step}-${c.at}`} value={c.at} label={c.step} />)}
          </datalist>
          {replayAt !== null && <button type="button" className="secondary" onClick={() => setReplayAt(null)}>Show all</button>}
        </div>
        <p className="hint admin-replay-info" data-testid="replay-time" aria-live="polite">
          {formatClock(t, range.start)} (+{formatDuration(t - range.start)}) · step {stepAt(changes, t)} · {shown.length}/{detail.transcript.length} messages
        </p>
        <ol className="admin-steps" aria-label="Jump to a step change">
          {changes.map((c) => (
            <li key={`${c.step}-${c.at}`}>
              <button type="button" className="admin-chip" onClick={() => setReplayAt(c.at)}>
                {c.step} <span className="hint">+{formatDuration(c.at - range.start)}</span>
              </button>
            </li>
          ))}
        </ol>
        <label className="admin-toggle">
          <input type="checkbox" checked={rawText} onChange={(e) => setRawText(e.target.checked)} /> Show the raw text of assistant replies
        </label>
        {detail.transcript.length === 0 && <p className="hint">No messages yet.</p>}
        <ol className="admin-transcript" data-testid="transcript">
          {shown.map((m) => (
            <li key={m.id} className={`admin-msg admin-msg-${m.role}`} data-testid="transcript-message">
              <div className="admin-msg-meta">
                <span className="admin-who">{m.role === 'user' ? 'participant' : 'assistant'}</span>
                {m.model && <span>{modelLabel(m.model, m.provenance)}</span>}
                <span>{formatClock(m.createdAt, range.start)}</span>
                <span>{m.tokens} tokens</span>
                {m.ttftMs !== null && <span>first token after {formatLatency(m.ttftMs)}</span>}
                {m.status !== 'complete' && <span className="admin-msg-status">{m.status}</span>}
              </div>
              {m.provenance && <ReplyProvenance provenance={m.provenance} sent={m.text} />}
              {m.role === 'assistant' && !rawText ? (
                <div className="admin-msg-markdown" data-testid="transcript-markdown">
                  <SafeMarkdown text={m.text} />
                </div>
              ) : (
                <div className="admin-msg-text">{m.text}</div>
              )}
            </li>
          ))}
        </ol>
      </section>

      <IntegritySection detail={detail} />
      <ArtifactVersions detail={detail} />
      <SurveyAnswers detail={detail} />
      <JudgeSamples detail={detail} />
    </>
  );
}
