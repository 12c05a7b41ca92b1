import { useEffect, useRef, useState } from 'react';
import type * as Y from 'yjs';
import type { ArtifactField } from '../../../common/study';
import type { GroupView } from '../../../common/groupEvents';
import type { LiveGroup } from './useGroup';
import { editTo, onLocalUpdate } from './sharedText';
import './group.css';

type Grouped = Extract<GroupView, { state: 'grouped' }>;

/**
 * The group room: one chat with every person and agent (each message under its sender's display name, agents' replies
 * as they stream), who is here and who is typing, and the shared artifact every member edits live. Text is rendered
 * as text, never as HTML.
 */
export function GroupRoom({
  view,
  group,
  doc,
  fields,
  onSubmit,
}: {
  view: Grouped;
  group: LiveGroup;
  doc: Y.Doc;
  fields: readonly ArtifactField[];
  onSubmit: (fields: Record<string, string>) => Promise<unknown>;
}) {
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [texts, setTexts] = useState<Record<string, string>>({});
  const typingTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const shared = fields.filter((f) => f.kind !== 'image');
  const ended = view.status === 'ended';

  useEffect(() => {
    const refresh = () => setTexts(Object.fromEntries(shared.map((f) => [f.id, doc.getText(f.id).toString()])));
    refresh();
    doc.on('update', refresh);
    // One subscription for the document (not one per field): each local edit is sent once, under the field it changed.
    const off = onLocalUpdate(doc, (update, field) => void group.socket.emit('group:doc:update', { groupId: view.groupId, field, update }).catch((e: Error) => setError(e.message)));
    return () => {
      doc.off('update', refresh);
      off();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [doc, view.groupId]);

  const send = async () => {
    const text = draft.trim();
    if (!text) return;
    setDraft('');
    try {
      await group.socket.emit('group:send', { groupId: view.groupId, clientId: crypto.randomUUID(), text });
    } catch (e) {
      setDraft(text);
      setError((e as Error).message);
    }
  };
  const typing = (value: string) => {
    setDraft(value);
    if (!typingTimer.current) void group.socket.emit('group:typing', { groupId: view.groupId, typing: true }).catch(() => undefined);
    if (typingTimer.current) clearTimeout(typingTimer.current);
    typingTimer.current = setTimeout(() => {
      typingTimer.current = null;
      void group.socket.emit('group:typing', { groupId: view.groupId, typing: false }).catch(() => undefined);
    }, 2000);
  };
  const typingNames = group.members.filter((m) => m.typing && m.seat !== view.seat).map((m) => m.name);

  return (
    <div className="group-room">
      <section className="group-chat" aria-labelledby="room-title">
        <h1 id="room-title" tabIndex={-1}>
          Your group
        </h1>
        <ul className="group-members" aria-label="Members" data-testid="group-members">
          {group.members.map((m) => (
            <li key={m.seat} data-status={m.status}>
              {m.name}
              {m.seat === view.seat ? ' (you)' : ''}
              {m.kind === 'agent' ? ' · AI' : ''} · {m.status === 'present' ? 'here' : m.status}
            </li>
          ))}
        </ul>
        <ol className="group-messages" aria-live="polite" data-testid="group-messages">
          {group.messages.map((m) => (
            <li key={m.groupSeq} data-sender-kind={m.senderKind}>
              <strong>{m.senderName}</strong>: <span className="message-text">{m.text}</span>
            </li>
          ))}
          {Object.entries(group.streaming).map(([id, d]) => (
            <li key={id} data-sender-kind="agent" data-streaming="true">
              <strong>{d.senderName}</strong>: <span className="message-text">{d.text}</span>
            </li>
          ))}
        </ol>
        <p className="typing" aria-live="polite">
          {typingNames.length > 0 ? `${typingNames.join(', ')} typing…` : '\u00a0'}
        </p>
        {ended ? (
          <p role="status">The group's session has ended{view.endReason === 'dropout' ? ' because a member left' : ''}.</p>
        ) : (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void send();
            }}
          >
            <label htmlFor="group-draft">Message to the group</label>
            <textarea id="group-draft" value={draft} onChange={(e) => typing(e.target.value)} rows={2} />
            <button type="submit">Send</button>
          </form>
        )}
        {error && <p role="alert">{error}</p>}
      </section>
      <section className="group-artifact" aria-labelledby="artifact-title">
        <h2 id="artifact-title">Shared plan (everyone edits it live)</h2>
        {shared.map((f) => (
          <div key={f.id}>
            <label htmlFor={`shared-${f.id}`}>{f.label}</label>
            <textarea id={`shared-${f.id}`} data-testid={`shared-${f.id}`} value={texts[f.id] ?? ''} rows={12} disabled={ended} onChange={(e) => editTo(doc, f.id, e.target.value)} />
          </div>
        ))}
        <button type="button" onClick={() => void onSubmit(texts).catch((e: Error) => setError(e.message))}>
          Submit the group's plan and go to my survey
        </button>
      </section>
    </div>
  );
}
