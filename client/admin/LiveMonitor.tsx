import { navigate } from '../router';
import { formatDuration, formatTime, type MonitorSnapshot } from './api';

/** Active (and recently ended) sessions, updated in real time over the /admin socket. */
export function LiveMonitor({ snapshot, connected }: { snapshot: MonitorSnapshot | null; connected: boolean }) {
  return (
    <section className="card" aria-labelledby="monitor-title">
      <h2 id="monitor-title">
        Live monitor <span className={`conn-dot ${connected ? 'on' : 'off'}`} title={connected ? 'live' : 'reconnecting'} />
      </h2>
      {!snapshot && <p className="hint">Connecting…</p>}
      {snapshot && snapshot.sessions.length === 0 && <p className="hint">No active sessions.</p>}
      {snapshot && snapshot.sessions.length > 0 && (
        <table className="admin-table" data-testid="monitor-table">
          <thead>
            <tr><th>session</th><th>task / condition</th><th>step</th><th>status</th><th>connection</th><th>messages</th><th>elapsed</th><th>last activity</th></tr>
          </thead>
          <tbody>
            {snapshot.sessions.map((s) => (
              <tr key={s.sessionId} data-testid="monitor-row" data-session={s.sessionId}>
                <td>
                  <a href={`/admin/sessions/${s.sessionId}`} onClick={(e) => { e.preventDefault(); navigate(`/admin/sessions/${s.sessionId}`); }}>
                    {s.sessionId.slice(0, 8)}
                  </a>
                  {s.isPilot && <span className="status-badge status-pilot">pilot</span>}
                </td>
                <td>{s.taskId} / {s.conditionId}</td>
                <td data-testid="monitor-step">{s.step}</td>
                <td>{s.status}</td>
                <td><span className={`conn-state conn-${s.connection}`}>{s.connection}</span></td>
                <td data-testid="monitor-messages">{s.messages}</td>
                <td>{formatDuration(s.elapsedMs)}</td>
                <td>{formatTime(s.lastActivityAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
