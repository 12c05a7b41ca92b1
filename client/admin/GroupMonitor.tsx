import type { MonitorGroup, MonitorGroupMember, MonitorGroups } from '../../common/groupMonitor';
import { AdminLink } from './AdminLink';
import { formatAgo, formatDuration } from './format';
import type { StreamingReplies } from './groupMonitorState';

/** What a seat's presence is called on the monitor. */
export function presenceLabel(m: MonitorGroupMember): string {
  if (m.standIn) return 'replaced by agent';
  if (m.status === 'present') return m.typing ? 'typing' : 'here';
  if (m.status === 'away') return 'disconnected';
  return m.status; // dropped, left, withdrawn
}

function Member({ m, at }: { m: MonitorGroupMember; at: number }) {
  const label = presenceLabel(m);
  return (
    <li className={`group-presence presence-${label.replace(/ /g, '-')}`} data-testid="monitor-member" data-presence={label}>
      <span className="group-member-name">
        {m.sessionId ? (
          <AdminLink to={`/admin/sessions/${m.sessionId}`} title={`Open session ${m.sessionId}`}>
            {m.name}
          </AdminLink>
        ) : (
          m.name
        )}
        {m.kind === 'agent' ? ' · AI' : ''}
      </span>{' '}
      <span className="group-presence-label">
        {label}
        {m.status === 'away' && m.awaySince !== null ? ` (${formatAgo(m.awaySince, at)})` : ''}
      </span>
    </li>
  );
}

export function GroupCard({ g, at, streaming }: { g: MonitorGroup; at: number; streaming: Record<string, { senderName: string; text: string }> }) {
  const live = g.status === 'active';
  return (
    <article className={`card group-card${live ? '' : ' admin-ended'}`} data-testid="monitor-group" data-group={g.groupId} aria-label={`Group ${g.groupId.slice(0, 8)}`}>
      <h4>
        Group <span className="admin-id">{g.groupId.slice(0, 8)}</span> · {g.conditionId} · {g.taskId}
      </h4>
      <p className="hint">
        {live ? `live for ${formatDuration(at - g.formedAt)}` : `ended${g.endReason ? ` (${g.endReason})` : ''} ${formatAgo(g.endedAt ?? at, at)}`}
        {g.wizardAgents.length > 0 && ` · wizard: ${g.wizardAgents.join(', ')}`}
      </p>
      <ul className="group-monitor-members" aria-label="Members" data-testid="monitor-members">
        {g.members.map((m) => (
          <Member key={m.seat} m={m} at={at} />
        ))}
      </ul>
      <div className="group-monitor-body">
        <section aria-label="Room">
          <h5>Room ({g.messages.length} messages{g.messages.length >= 50 ? ', latest shown' : ''})</h5>
          <ol className="group-monitor-messages" data-testid="monitor-room">
            {g.messages.map((m) => (
              <li key={m.groupSeq} data-sender-kind={m.senderKind}>
                <strong>{m.senderName}</strong>
                {m.senderKind === 'researcher' && <span className="status-badge" title="a researcher wrote this as the agent (Wizard of Oz)">wizard</span>}:{' '}
                <span className="message-text">{m.text}</span>
              </li>
            ))}
            {Object.entries(streaming).map(([id, r]) => (
              <li key={id} data-sender-kind="agent" data-streaming="true">
                <strong>{r.senderName}</strong>: <span className="message-text">{r.text}</span>
              </li>
            ))}
          </ol>
          {g.messages.length === 0 && Object.keys(streaming).length === 0 && <p className="hint">No messages yet.</p>}
        </section>
        <section aria-label="Shared document">
          <h5>Shared document</h5>
          {g.doc.fields.length === 0 && <p className="hint">Nobody has edited it yet.</p>}
          {g.doc.fields.map((f) => (
            <div key={f.field}>
              <p className="hint">{f.field}</p>
              <pre className="group-monitor-doc" data-testid={`monitor-doc-${f.field}`}>
                {f.text}
              </pre>
            </div>
          ))}
        </section>
      </div>
    </article>
  );
}

/** The lobbies (counts and the oldest wait only) and the live groups of a group study, as they change. */
export function GroupMonitor({ groups, at, streaming }: { groups: MonitorGroups; at: number; streaming: StreamingReplies }) {
  const live = groups.groups.filter((g) => g.status === 'active').length;
  return (
    <section className="group-monitor" aria-labelledby="group-monitor-title">
      <h3 id="group-monitor-title">Groups</h3>
      <div className="admin-scroll" tabIndex={0} role="region" aria-label="Lobbies table (scrolls sideways on small screens)">
        <table className="admin-table" data-testid="monitor-lobbies">
          <caption className="visually-hidden">People waiting in each lobby</caption>
          <thead>
            <tr>
              <th scope="col">condition</th>
              <th scope="col">task</th>
              <th scope="col" className="num">waiting</th>
              <th scope="col">oldest wait</th>
              <th scope="col">group size</th>
            </tr>
          </thead>
          <tbody>
            {groups.lobbies.map((l) => (
              <tr key={`${l.conditionId}/${l.taskId}`} data-testid="monitor-lobby">
                <td>{l.conditionId}</td>
                <td>{l.taskId}</td>
                <td className="num" data-testid="lobby-waiting">{l.waiting}</td>
                <td data-testid="lobby-oldest">{l.oldestJoinedAt === null ? '—' : `${formatDuration(at - l.oldestJoinedAt)} (timeout ${l.timeoutSeconds} s)`}</td>
                <td>
                  {l.size.min === l.size.max ? l.size.max : `${l.size.min}–${l.size.max}`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="hint">
        {live} live group{live === 1 ? '' : 's'}
        {groups.groups.length > live ? ` · ${groups.groups.length - live} ended in the last 15 minutes` : ''}
      </p>
      <div className="group-monitor-list">
        {groups.groups.map((g) => (
          <GroupCard key={g.groupId} g={g} at={at} streaming={streaming[g.groupId] ?? {}} />
        ))}
      </div>
    </section>
  );
}
