import type { AuditEntryView } from '../../common/admin';
import { formatTime } from './format';

const ACTION_LABELS: Record<string, string> = {
  login: 'logged in',
  login_failed: 'failed login',
  logout: 'logged out',
  status_change: 'changed the status',
  export: 'exported the dataset',
  withdrawal: 'withdrew a participant',
  judge_run: 'ran the judge',
  analysis_run: 'ran the analysis',
};

/** A short, human reading of an entry's details (never personal data: the server stores none). */
function describe(e: AuditEntryView): string {
  const d = e.details;
  if (e.action === 'status_change' && typeof d.from === 'string' && typeof d.to === 'string') return `${d.from} → ${d.to}`;
  if (e.action === 'withdrawal') return `${String(d.deletedSessions ?? '?')} session(s) deleted · reference ${String(d.reference ?? '—')}`;
  if (e.action === 'export') {
    const parts = [d.includePilot ? 'with pilot sessions' : 'without pilot sessions', d.includeIdentities ? 'WITH identities.csv' : 'no identities'];
    if (typeof d.via === 'string') parts.push(`via ${d.via}`);
    return parts.join(' · ');
  }
  const entries = Object.entries(d);
  return entries.length === 0 ? '' : entries.map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`).join(' · ');
}

/** The newest researcher actions on this study and installation-wide ones (logins). */
export function AuditLog({ entries }: { entries: AuditEntryView[] | null }) {
  const shown = entries?.slice(0, 30) ?? [];
  return (
    <section className="card" aria-labelledby="audit-title">
      <h2 id="audit-title">Audit log</h2>
      {entries === null && <p className="hint">Loading…</p>}
      {entries?.length === 0 && <p className="hint">No researcher actions recorded yet.</p>}
      {shown.length > 0 && (
        <table className="admin-table admin-audit">
          <caption className="visually-hidden">Researcher actions, newest first</caption>
          <thead>
            <tr><th scope="col">when</th><th scope="col">who</th><th scope="col">action</th><th scope="col">details</th></tr>
          </thead>
          <tbody>
            {shown.map((e, i) => (
              <tr key={i}>
                <td className="admin-nowrap">{formatTime(e.at)}</td>
                <td>{e.actor}</td>
                <td>{ACTION_LABELS[e.action] ?? e.action.replace(/_/g, ' ')}</td>
                <td>{describe(e)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {entries && entries.length > shown.length && <p className="hint">Showing the newest {shown.length} of {entries.length} entries.</p>}
    </section>
  );
}
