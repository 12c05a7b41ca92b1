import { useEffect, useState } from 'react';
import { navigate } from '../router';
import { apiGet, apiPost, type StudySummary } from './api';

/** All studies with status and session counts per condition and outcome. */
export function StudiesPage({ onLoggedOut }: { onLoggedOut: () => void }) {
  const [studies, setStudies] = useState<StudySummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    apiGet<StudySummary[]>('/api/admin/studies').then(setStudies, (e: Error) => setError(e.message));
  }, []);

  const logout = async () => {
    await apiPost('/api/admin/logout').catch(() => undefined);
    onLoggedOut();
  };

  return (
    <>
      <div className="admin-heading">
        <h1>Studies</h1>
        <button type="button" className="secondary" onClick={logout}>Log out</button>
      </div>
      {error && <p className="error-box" role="alert">{error}</p>}
      {studies === null && !error && <p className="page-status">Loading…</p>}
      {studies?.map((s) => (
        <section className="card" key={s.id} data-testid={`study-${s.id}`}>
          <h2>
            <a href={`/admin/studies/${s.id}`} onClick={(e) => { e.preventDefault(); navigate(`/admin/studies/${s.id}`); }}>{s.title}</a>{' '}
            <span className={`status-badge status-${s.status}`}>{s.status}</span>
          </h2>
          <p className="hint">{s.id} · {s.totalSessions} sessions ({s.pilotSessions} pilot)</p>
          <CountsTable study={s} />
        </section>
      ))}
    </>
  );
}

export function CountsTable({ study }: { study: StudySummary }) {
  const statuses = ['active', 'completed', 'declined', 'timed_out'];
  const count = (condition: string, status: string) =>
    study.counts.filter((c) => c.conditionId === condition && c.status === status && !c.isPilot).reduce((a, c) => a + c.n, 0);
  const pilot = (condition: string) => study.counts.filter((c) => c.conditionId === condition && c.isPilot).reduce((a, c) => a + c.n, 0);
  return (
    <table className="admin-table">
      <thead>
        <tr><th>condition</th>{statuses.map((s) => <th key={s}>{s}</th>)}<th>pilot</th></tr>
      </thead>
      <tbody>
        {study.conditions.map((c) => (
          <tr key={c}><td>{c}</td>{statuses.map((s) => <td key={s}>{count(c, s)}</td>)}<td>{pilot(c)}</td></tr>
        ))}
      </tbody>
    </table>
  );
}
