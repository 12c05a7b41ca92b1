import { useEffect, useState } from 'react';
import type { MonitorSession, MonitorSnapshot } from '../../common/admin';
import { GroupMonitor } from './GroupMonitor';
import type { StreamingReplies } from './groupMonitorState';
import { AdminLink } from './AdminLink';
import { formatAgo, formatDuration, formatTime, outcomeLabel } from './format';

const CONNECTION_HELP: Record<MonitorSession['connection'], string> = {
  connected: 'page open, active in the last minute',
  idle: 'page open, no activity for over a minute',
  disconnected: 'page closed or connection lost',
};

/** Ticks once a second so elapsed times and "ago" stay current between pushes. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/** Active (and recently ended) sessions, and in a group study its lobbies and groups, updated in real time over the /admin socket. */
export function LiveMonitor({ snapshot, connected }: { snapshot: (MonitorSnapshot & { streaming?: StreamingReplies }) | null; connected: boolean }) {
  const now = useNow();
  // The server's clock may differ from this browser's: age every time by how long ago the snapshot was received.
  const [received, setReceived] = useState(() => Date.now());
  // By the snapshot's time, not its identity: live group pushes change the object, not when it was taken.
  useEffect(() => setReceived(Date.now()), [snapshot?.at]);
  const since = Math.max(0, now - received);

  const sessions = snapshot?.sessions ?? [];
  const active = sessions.filter((s) => s.status === 'active');
  const online = active.filter((s) => s.connection !== 'disconnected').length;
  return (
    <section className="card" aria-labelledby="monitor-title">
      <div className="admin-heading">
        <h2 id="monitor-title">Live monitor</h2>
        <span className={`admin-live ${connected ? 'on' : 'off'}`} role="status">
          <span className="conn-dot" aria-hidden="true" /> {connected ? 'live updates' : 'reconnecting…'}
        </span>
      </div>
      {!snapshot && <p className="hint">Connecting…</p>}
      {snapshot && sessions.length === 0 && (
        <>
          <p>No active sessions.</p>
          <p className="hint">A session appears here as soon as a participant opens the study link; ended sessions stay for 15 minutes.</p>
        </>
      )}
      {snapshot && sessions.length > 0 && (
        <>
          <p className="hint">
            {active.length} active ({online} with the page open) · {sessions.length - active.length} ended in the last 15 minutes
          </p>
          <div className="admin-scroll" tabIndex={0} role="region" aria-label="Live sessions table (scrolls sideways on small screens)">
            <table className="admin-table admin-monitor" data-testid="monitor-table">
              <caption className="visually-hidden">Active and recently ended sessions</caption>
              <thead>
                <tr>
                  <th scope="col">session</th>
                  <th scope="col">task</th>
                  <th scope="col">condition</th>
                  <th scope="col">step</th>
                  <th scope="col">outcome</th>
                  <th scope="col">page</th>
                  <th scope="col" className="num">messages</th>
                  <th scope="col" className="num">elapsed</th>
                  <th scope="col">last activity</th>
                </tr>
              </thead>
              <tbody>
                {sessions.map((s) => {
                  const running = s.status === 'active';
                  return (
                    <tr key={s.sessionId} data-testid="monitor-row" data-session={s.sessionId} className={running ? undefined : 'admin-ended'}>
                      <td>
                        <AdminLink to={`/admin/sessions/${s.sessionId}`} className="admin-id" title={`Open session ${s.sessionId}`}>
                          {s.sessionId.slice(0, 8)}
                        </AdminLink>
                        {s.isPilot && <span className="status-badge status-pilot">pilot</span>}
                      </td>
                      <td>{s.taskId}</td>
                      <td>{s.conditionId}</td>
                      <td data-testid="monitor-step"><span className={`admin-step admin-step-${s.step}`}>{s.step}</span></td>
                      <td>{outcomeLabel(s.status)}</td>
                      <td>
                        <span className={`conn-state conn-${s.connection}`} title={CONNECTION_HELP[s.connection]}>
                          <span className="conn-dot" aria-hidden="true" />
                          {s.connection}
                        </span>
                      </td>
                      <td data-testid="monitor-messages" className="num">{s.messages}</td>
                      <td className="num">{formatDuration(s.elapsedMs + (running ? since : 0))}</td>
                      <td title={formatTime(s.lastActivityAt)}>{formatAgo(s.lastActivityAt, (snapshot?.at ?? now) + since)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </>
      )}
      {snapshot?.groups && <GroupMonitor groups={snapshot.groups} at={snapshot.at + since} streaming={snapshot.streaming ?? {}} />}
    </section>
  );
}
