import { useEffect, useMemo, useState } from 'react';
import { navigate } from '../router';
import { apiGet, formatTime, type SessionDetail, type TimelineEvent } from './api';

/** The step a session was at, at time `t`, replayed from its step.changed events. */
function stepAt(timeline: TimelineEvent[], t: number): string {
  let step = 'consent';
  for (const e of timeline) {
    if (e.serverTs > t) break;
    if (e.type === 'step.changed' && e.payload && typeof e.payload === 'object' && 'to' in e.payload) step = String((e.payload as { to: unknown }).to);
  }
  return step;
}

/**
 * One session: the transcript with a replay slider along its time line, artifact versions, survey answers,
 * judge samples and Pz. Participant text is rendered as plain text (React escapes it), never as HTML.
 */
export function SessionPage({ sessionId }: { sessionId: string }) {
  const [detail, setDetail] = useState<SessionDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [replayAt, setReplayAt] = useState<number | null>(null);

  useEffect(() => {
    let cancelled = false;
    const load = () =>
      apiGet<SessionDetail>(`/api/admin/sessions/${sessionId}`).then(
        (d) => !cancelled && setDetail(d),
        (e: Error) => !cancelled && setError(e.message),
      );
    void load();
    const timer = setInterval(() => void load(), 3000);
    return () => {
      cancelled = true;
      clearInterval(timer);
    };
  }, [sessionId]);

  const range = useMemo(() => {
    if (!detail) return null;
    const start = detail.session.createdAt;
    const end = Math.max(start, ...detail.timeline.map((e) => e.serverTs));
    return { start, end };
  }, [detail]);

  if (error) return <p className="error-box" role="alert">{error}</p>;
  if (!detail || !range) return <p className="page-status">Loading…</p>;

  const t = replayAt ?? range.end;
  const shown = detail.transcript.filter((m) => m.createdAt <= t);
  const s = detail.session;

  return (
    <>
      <p>
        <a href={`/admin/studies/${s.studyId}`} onClick={(e) => { e.preventDefault(); navigate(`/admin/studies/${s.studyId}`); }}>← study {s.studyId}</a>
      </p>
      <h1>Session {s.id.slice(0, 8)}</h1>
      <section className="card">
        <dl className="admin-facts">
          <dt>task</dt><dd>{s.taskId}</dd>
          <dt>condition</dt><dd>{s.conditionId}</dd>
          <dt>status</dt><dd data-testid="session-status">{s.status}{s.isPilot ? ' (pilot)' : ''}</dd>
          <dt>step</dt><dd>{s.step}</dd>
          <dt>started</dt><dd>{formatTime(s.createdAt)}</dd>
          <dt>submitted</dt><dd>{formatTime(s.submittedAt)}</dd>
          <dt>quality Q</dt><dd>{detail.judge.quality ?? '—'}</dd>
          <dt>Pz</dt><dd>{detail.pz === null ? '—' : detail.pz.toFixed(2)}</dd>
        </dl>
      </section>

      <section className="card" aria-labelledby="transcript-title">
        <h2 id="transcript-title">Transcript</h2>
        <div className="replay">
          <label htmlFor="replay">Replay</label>
          <input
            id="replay"
            type="range"
            min={range.start}
            max={range.end}
            step={Math.max(1, Math.round((range.end - range.start) / 500))}
            value={t}
            onChange={(e) => setReplayAt(Number(e.target.value))}
          />
          <span data-testid="replay-time">{formatTime(t)} · step {stepAt(detail.timeline, t)} · {shown.length}/{detail.transcript.length} messages</span>
          {replayAt !== null && <button type="button" className="secondary" onClick={() => setReplayAt(null)}>Show all</button>}
        </div>
        <ol className="admin-transcript" data-testid="transcript">
          {shown.map((m) => (
            <li key={m.id} className={`admin-msg admin-msg-${m.role}`} data-testid="transcript-message">
              <div className="hint">
                {m.role === 'user' ? 'participant' : `assistant${m.model ? ` (${m.model})` : ''}`} · {formatTime(m.createdAt)} · {m.tokens} tokens
                {m.status !== 'complete' ? ` · ${m.status}` : ''}
              </div>
              <div className="admin-msg-text">{m.text}</div>
            </li>
          ))}
        </ol>
      </section>

      <section className="card">
        <h2>Artifact versions</h2>
        {detail.artifactVersions.length === 0 && <p className="hint">Nothing submitted yet.</p>}
        {detail.artifactVersions.map((a) => (
          <div key={a.version} className="admin-artifact">
            <h3>Version {a.version} · {formatTime(a.submittedAt)}</h3>
            {Object.entries(a.fields).map(([field, value]) => {
              const upload = detail.uploads.find((u) => u.id === value);
              return (
                <div key={field}>
                  <strong>{field}</strong>
                  {upload ? <img src={upload.url} alt={`${field} (uploaded image)`} className="admin-image" /> : <div className="admin-msg-text">{value}</div>}
                </div>
              );
            })}
          </div>
        ))}
      </section>

      <section className="card">
        <h2>Survey</h2>
        {detail.survey.length === 0 ? <p className="hint">Not answered yet.</p> : (
          <table className="admin-table">
            <tbody>{detail.survey.map((a) => <tr key={a.itemId}><td>{a.itemId}</td><td>{a.kind}</td><td className="admin-msg-text">{a.value ?? '—'}</td></tr>)}</tbody>
          </table>
        )}
      </section>

      <section className="card">
        <h2>Judge samples</h2>
        {detail.judge.samples.length === 0 ? <p className="hint">Not judged yet (run <code>npm run judge -- --study {s.studyId}</code>).</p> : (
          <table className="admin-table">
            <thead><tr><th>version</th><th>rubric</th><th>model</th><th>sample</th><th>score</th></tr></thead>
            <tbody>{detail.judge.samples.map((j, i) => <tr key={i}><td>{j.artifactVersion}</td><td>{j.rubricId}</td><td>{j.model}</td><td>{j.sample}</td><td>{j.score ?? (j.parseOk ? '—' : 'unparsed')}</td></tr>)}</tbody>
          </table>
        )}
      </section>
    </>
  );
}
