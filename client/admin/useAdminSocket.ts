import { useEffect, useState } from 'react';
import type { ExportProgress, MonitorSnapshot, RunKind, RunProgress } from '../../common/admin';
import { messageOf } from '../socket/errors';
import { AdminSocket } from './adminSocket';

/**
 * The /admin namespace for one study: subscribes to its live monitor (re-subscribing on every reconnect)
 * and follows export and judge/analysis progress for that study.
 */
export function useAdminSocket(studyId: string) {
  const [snapshot, setSnapshot] = useState<MonitorSnapshot | null>(null);
  const [connected, setConnected] = useState(false);
  const [exportProgress, setExportProgress] = useState<ExportProgress | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [runs, setRuns] = useState<Partial<Record<RunKind, RunProgress>>>({});

  useEffect(() => {
    const socket = new AdminSocket();
    socket.onConnect(() => {
      setConnected(true);
      setError(null);
      socket.emit('monitor:subscribe', { studyId }).then(setSnapshot, (e: unknown) => setError(`Live monitor unavailable: ${messageOf(e)}`));
    });
    socket.onDisconnect(() => setConnected(false));
    socket.onConnectError((message) => setError(message === 'unauthorized' ? 'Your login has ended; reload the page to log in again.' : `Live monitor: ${message}`));
    socket.on('monitor:update', (s) => {
      if (s.studyId === studyId) setSnapshot(s);
    });
    socket.on('run:progress', (p) => {
      if (p.studyId === studyId) setRuns((r) => ({ ...r, [p.kind]: p }));
    });
    socket.on('export:progress', (p) => {
      if (p.studyId === studyId) setExportProgress(p);
    });
    return () => socket.close();
  }, [studyId]);

  return { snapshot, connected, exportProgress, error, runs };
}
