import { useEffect, useState } from 'react';
import type { StudySummary } from '../../common/admin';
import { adminApi } from './api';
import { AdminLink, PageHeading, pageTitle } from './AdminLink';
import { CountsTable } from './CountsTable';
import { StatusBadge } from './StatusBadge';
import { formatCount } from './format';

/** All studies with status and session counts per condition and outcome. */
export function StudiesPage() {
  const [studies, setStudies] = useState<StudySummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    document.title = pageTitle('Studies');
    adminApi.studies().then(setStudies, (e: Error) => setError(e.message));
  }, []);

  return (
    <>
      <PageHeading>Studies</PageHeading>
      {error && <p className="error-box" role="alert">{error}</p>}
      {studies === null && !error && <p className="page-status" role="status">Loading…</p>}
      {studies?.length === 0 && (
        <p className="card">No studies yet. Put a study definition in <code>studies/</code> and restart the server.</p>
      )}
      {studies?.map((s) => (
        <section className="card" key={s.id} data-testid={`study-${s.id}`} aria-labelledby={`study-title-${s.id}`}>
          <h2 id={`study-title-${s.id}`} className="admin-study-title">
            <AdminLink to={`/admin/studies/${s.id}`}>{s.title}</AdminLink>
            <StatusBadge status={s.status} />
          </h2>
          <p className="hint admin-meta">
            <code>{s.id}</code> · {formatCount(s.totalSessions - s.pilotSessions)} session{s.totalSessions - s.pilotSessions === 1 ? '' : 's'}
            {s.pilotSessions > 0 && ` + ${formatCount(s.pilotSessions)} pilot`}
            {' · '}{s.tasks.length} task{s.tasks.length === 1 ? '' : 's'} · {s.conditions.length} condition{s.conditions.length === 1 ? '' : 's'}
            {!s.configured && <strong className="error"> · definition file missing</strong>}
          </p>
          <CountsTable study={s} />
        </section>
      ))}
    </>
  );
}
