import { useEffect, useState } from 'react';
import { io, type Socket } from 'socket.io-client';
import type { MonitorSnapshot } from './api';

export interface RunProgressView {
  studyId: string;
  kind: 'judge' | 'analysis';
  state: 'running' | 'done' | 'failed';
  done: number;
  total: number;
  message: string;
}

/**
 * The /admin namespace for one study: subscribes to its live monitor and follows export progress.
 * The login cookie authenticates the handshake (same origin).
 */
export function useAdminSocket(studyId: string) {
  const [snapshot, setSnapshot] = useState<MonitorSnapshot | null>(null);
  const [connected, setConnected] = useState(false);
  const [exportProgress, setExportProgress] = useState<{ done: number; total: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [runs, setRuns] = useState<Record<string, RunProgressView>>({});

  useEffect(() => {
    const socket: Socket = io('/admin', { withCredentials: true });
    const subscribe = () =>
      socket.emit('monitor:subscribe', { studyId }, (reply: { ok: boolean; data?: MonitorSnapshot; error?: { message: string } }) => {
        if (reply.ok && reply.data) setSnapshot(reply.data);
        else setError(reply.error?.message ?? 'could not subscribe to the monitor');
      });
    socket.on('connect', () => {
      setConnected(true);
      setError(null);
      subscribe();
    });
    socket.on('disconnect', () => setConnected(false));
    socket.on('connect_error', (e: Error) => setError(e.message === 'unauthorized' ? 'Your login has ended; reload the page.' : e.message));
    socket.on('monitor:update', (s: MonitorSnapshot) => {
      if (s.studyId === studyId) setSnapshot(s);
    });
    socket.on('run:progress', (p: RunProgressView) => {
      if (p.studyId === studyId) setRuns((r) => ({ ...r, [p.kind]: p }));
    });
    socket.on('export:progress', (p: { studyId: string; done: number; total: number }) => {
      if (p.studyId === studyId) setExportProgress({ done: p.done, total: p.total });
    });
    return () => {
      socket.close();
    };
  }, [studyId]);

  return { snapshot, connected, exportProgress, error, runs };
}
