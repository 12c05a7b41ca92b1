/**
 * The session's group, live: asks where it stands on every (re)connect (a reload or a new node rejoins the room
 * with its history), and follows the lobby count, the room's messages, streamed agent replies, presence and the
 * shared document's updates.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { GroupMemberView, GroupMessageView, GroupPush, GroupView } from '../../../common/groupEvents';
import type { Socket } from 'socket.io-client';
import { GroupSocket } from './groupSocket';

export interface LiveGroup {
  view: GroupView | null;
  /** The browser's offset to the server clock (server − browser), for the lobby countdown. */
  clockOffsetMs: number;
  messages: GroupMessageView[];
  members: GroupMemberView[];
  /** Agents' replies while they stream, by reply id. */
  streaming: Record<string, GroupPush<'group:delta'>>;
  socket: GroupSocket;
  /** Enters the lobby (with the screening answers, if the condition asks any) and shows where that left the session. */
  joinLobby(answers?: Record<string, string>): Promise<void>;
}

export function useGroup(connection: () => Socket, onDocUpdate: (p: GroupPush<'group:doc'>) => void): LiveGroup {
  const socket = useMemo(() => new GroupSocket(connection()), [connection]);
  const [view, setView] = useState<GroupView | null>(null);
  const [clockOffsetMs, setOffset] = useState(0);
  const [messages, setMessages] = useState<GroupMessageView[]>([]);
  const [members, setMembers] = useState<GroupMemberView[]>([]);
  const [streaming, setStreaming] = useState<Record<string, GroupPush<'group:delta'>>>({});

  const apply = useCallback(
    (v: GroupView) => {
      setView(v);
      if (v.state === 'waiting') setOffset(v.serverNow - Date.now());
      if (v.state === 'grouped') {
        setMessages(v.messages);
        setMembers(v.members);
        for (const d of v.doc) for (const update of d.updates) onDocUpdate({ groupId: v.groupId, field: d.field, update, seq: 1 });
      }
    },
    // onDocUpdate is stable for the page's lifetime (GroupGate's callback over its one document).
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [],
  );
  useEffect(() => {
    const sync = () => void socket.emit<GroupView>('group:status', {}).then(apply, () => undefined);
    if (socket.connected) sync();
    const offs = [
      socket.onConnect(sync),
      socket.on('group:view', apply),
      socket.on('group:lobby', ({ waiting }) => setView((v) => (v?.state === 'waiting' ? { ...v, waiting } : v))),
      socket.on('group:message', (m) => {
        setMessages((list) => (list.some((x) => x.groupSeq === m.groupSeq) ? list : [...list, m].sort((a, b) => a.groupSeq - b.groupSeq)));
        setStreaming((s) => {
          const next = { ...s };
          for (const [id, d] of Object.entries(next)) if (d.seat === m.seat) delete next[id];
          return next;
        });
      }),
      socket.on('group:delta', (d) => setStreaming((s) => ({ ...s, [d.replyId]: d }))),
      socket.on('group:presence', (p) => setMembers(p.members)),
      socket.on('group:doc', onDocUpdate),
    ];
    return () => {
      for (const off of offs) off();
    };
  }, [socket, apply, onDocUpdate]);
  const joinLobby = useCallback(
    (answers?: Record<string, string>) => socket.emit<GroupView>('group:lobby:join', answers ? { answers } : {}).then(apply),
    [socket, apply],
  );
  return { view, clockOffsetMs, messages, members, streaming, socket, joinLobby };
}
