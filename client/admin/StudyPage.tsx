import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { navigate } from '../router';
import { apiGet, apiPost, formatTime, type AuditEntryView, type ExportTicket, type StudySummary } from './api';
import { LiveMonitor } from './LiveMonitor';
import { CountsTable } from './StudiesPage';
import { useAdminSocket, type RunProgressView } from './useAdminSocket';

const STATUSES = ['draft', 'pilot', 'live', 'closed'] as const;

/** One study: status (pilot switch), counts, live monitor, export, withdrawal, audit log. */
export function StudyPage({ studyId }: { studyId: string; onLoggedOut: () => void }) {
  const [study, setStudy] = useState<StudySummary | null>(null);
  const [audit, setAudit] = useState<AuditEntryView[]>([]);
  const [error, setError] = useState<string | null>(null);
  const live = useAdminSocket(studyId);

  const reload = useCallback(() => {
    apiGet<StudySummary[]>('/api/admin/studies').then(
      (list) => setStudy(list.find((s) => s.id === studyId) ?? null),
      (e: Error) => setError(e.message),
    );
    apiGet<AuditEntryView[]>(`/api/admin/studies/${studyId}/audit`).then(setAudit, () => undefined);
  }, [studyId]);
  useEffect(reload, [reload]);

  if (error) return <p className="error-box" role="alert">{error}</p>;
  if (!study) return <p className="page-status">Loading…</p>;

  return (
    <>
      <p><a href="/admin" onClick={(e) => { e.preventDefault(); navigate('/admin'); }}>← all studies</a></p>
      <h1>{study.title} <span className={`status-badge status-${study.status}`} data-testid="study-status">{study.status}</span></h1>
      <StatusControl study={study} onChanged={reload} />
      <section className="card"><h2>Sessions</h2><CountsTable study={study} /></section>
      {live.error && <p className="error-box" role="alert">{live.error}</p>}
      <LiveMonitor snapshot={live.snapshot} connected={live.connected} />
      <ExportPanel studyId={studyId} progress={live.exportProgress} onDone={reload} />
      <RunsPanel studyId={studyId} runs={live.runs} />
      <WithdrawPanel studyId={studyId} onDone={reload} />
      <section className="card">
        <h2>Audit log</h2>
        <ul className="audit-list">
          {audit.slice(0, 30).map((e, i) => (
            <li key={i}>{formatTime(e.at)} · {e.actor} · {e.action}</li>
          ))}
        </ul>
      </section>
    </>
  );
}

function StatusControl({ study, onChanged }: { study: StudySummary; onChanged: () => void }) {
  const [status, setStatus] = useState(study.status);
  const [message, setMessage] = useState<string | null>(null);
  const apply = async () => {
    try {
      await apiPost(`/api/admin/studies/${study.id}/status`, { status });
      setMessage(`Status set to ${status}.`);
      onChanged();
    } catch (e) {
      setMessage((e as Error).message);
    }
  };
  return (
    <section className="card">
      <h2>Status</h2>
      <p className="hint">Pilot: sessions are marked as pilot and left out of assignment balance, exports and analysis by default.</p>
      <div className="actions">
        <label htmlFor="study-status">Study status</label>
        <select id="study-status" value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
          {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
        <button type="button" onClick={apply} disabled={status === study.status}>Apply</button>
        {message && <span role="status">{message}</span>}
      </div>
    </section>
  );
}

function ExportPanel({ studyId, progress, onDone }: { studyId: string; progress: { done: number; total: number } | null; onDone: () => void }) {
  const [includePilot, setIncludePilot] = useState(false);
  const [includeIdentities, setIncludeIdentities] = useState(false);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const run = async () => {
    setBusy(true);
    setMessage(null);
    try {
      const ticket = await apiPost<ExportTicket>(`/api/admin/studies/${studyId}/exports`, { includePilot, includeIdentities });
      setMessage(`Exported ${ticket.sessions} session(s) (${ticket.redactions} redactions). Downloading…`);
      // A plain navigation streams the zip straight to disk (no blob in memory).
      const a = document.createElement('a');
      a.href = ticket.downloadUrl;
      a.download = '';
      document.body.appendChild(a);
      a.click();
      a.remove();
      onDone();
    } catch (e) {
      setMessage((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card">
      <h2>Export</h2>
      <div className="actions">
        <label><input type="checkbox" checked={includePilot} onChange={(e) => setIncludePilot(e.target.checked)} /> include pilot sessions</label>
        <label><input type="checkbox" checked={includeIdentities} onChange={(e) => setIncludeIdentities(e.target.checked)} /> include identities.csv (personal data)</label>
        <button type="button" onClick={run} disabled={busy}>Export dataset (zip)</button>
      </div>
      {busy && progress && <progress max={progress.total} value={progress.done} aria-label="export progress" />}
      {message && <p role="status" data-testid="export-message">{message}</p>}
    </section>
  );
}

/** Judge and analysis buttons with live progress, and the analysis report (server-rendered SVG plots) in a sandboxed frame. */
function RunsPanel({ studyId, runs }: { studyId: string; runs: Record<string, RunProgressView> }) {
  const [hasReport, setHasReport] = useState(false);
  const [reportVersion, setReportVersion] = useState(0);
  const [message, setMessage] = useState<string | null>(null);
  useEffect(() => {
    apiGet<{ hasReport: boolean }>(`/api/admin/studies/${studyId}/runs`).then((r) => setHasReport(r.hasReport), () => undefined);
  }, [studyId, runs.analysis?.state]);
  useEffect(() => {
    if (runs.analysis?.state === 'done') setReportVersion((v) => v + 1);
  }, [runs.analysis?.state]);
  const start = async (kind: 'judge' | 'analysis') => {
    setMessage(null);
    try {
      await apiPost(`/api/admin/studies/${studyId}/runs/${kind}`);
    } catch (e) {
      setMessage((e as Error).message);
    }
  };
  const line = (kind: 'judge' | 'analysis') => {
    const r = runs[kind];
    if (!r) return null;
    return (
      <p role="status" data-testid={`run-${kind}`}>
        {kind}: {r.state} — {r.message}
        {r.state === 'running' && r.total > 0 && <progress max={r.total} value={r.done} aria-label={`${kind} progress`} />}
      </p>
    );
  };
  return (
    <section className="card">
      <h2>Judge and analysis</h2>
      <div className="actions">
        <button type="button" onClick={() => void start('judge')} disabled={runs.judge?.state === 'running'}>Run the judge</button>
        <button type="button" onClick={() => void start('analysis')} disabled={runs.analysis?.state === 'running'}>Run the analysis</button>
      </div>
      {line('judge')}
      {line('analysis')}
      {message && <p className="error-box" role="alert">{message}</p>}
      {hasReport && (
        <iframe
          key={reportVersion}
          title="Analysis report"
          className="admin-report"
          sandbox=""
          src={`/api/admin/studies/${studyId}/analysis/report?v=${reportVersion}`}
        />
      )}
    </section>
  );
}

function WithdrawPanel({ studyId, onDone }: { studyId: string; onDone: () => void }) {
  const [participant, setParticipant] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!window.confirm('Delete all data of this participant in this study? This cannot be undone.')) return;
    try {
      const r = await apiPost<{ deletedSessions: number; reference: string }>(`/api/admin/studies/${studyId}/withdrawals`, { participant });
      setMessage(`Withdrawn: ${r.deletedSessions} session(s) deleted (reference ${r.reference}).`);
      setParticipant('');
      onDone();
    } catch (err) {
      setMessage((err as Error).message);
    }
  };
  return (
    <section className="card">
      <h2>Withdraw a participant</h2>
      <form onSubmit={submit} className="actions">
        <label htmlFor="withdraw-id">Platform id</label>
        <input id="withdraw-id" value={participant} onChange={(e) => setParticipant(e.target.value)} autoComplete="off" />
        <button type="submit" className="danger" disabled={participant.trim().length === 0}>Withdraw and delete data</button>
      </form>
      {message && <p role="status">{message}</p>}
    </section>
  );
}
