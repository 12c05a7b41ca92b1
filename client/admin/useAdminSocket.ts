import { useEffect, useMemo, useState } from 'react';
import type { ExportProgress, MonitorSnapshot, RunKind, RunProgress } from '../../common/admin';
import { messageOf } from '../socket/errors';
import { AdminSocket } from './adminSocket';
import { applyGroupPush, applyStreaming, type StreamingReplies } from './groupMonitorState';

/**
 * The /admin namespace for one study: subscribes to its live monitor (re-subscribing on every reconnect)
 * and follows export and judge/analysis progress for that study. A group study's rooms change between snapshots
 * through `monitor:group` pushes (groupMonitorState.ts); a lobby or a group that formed or ended reads the monitor
 * again.
 */
/** The monitor as the page shows it: the snapshot with its groups kept current, and the agents' replies streaming. */
export type LiveSnapshot = MonitorSnapshot & { streaming: StreamingReplies };

export function useAdminSocket(studyId: string) {
  const [snapshot, setSnapshot] = useState<MonitorSnapshot | null>(null);
  const [connected, setConnected] = useState(false);
  const [exportProgress, setExportProgress] = useState<ExportProgress | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [runs, setRuns] = useState<Partial<Record<RunKind, RunProgress>>>({});
  const [streaming, setStreaming] = useState<StreamingReplies>({});

  useEffect(() => {
    const socket = new AdminSocket();
    const subscribe = () =>
      socket.emit('monitor:subscribe', { studyId }).then(setSnapshot, (e: unknown) => setError(`Live monitor unavailable: ${messageOf(e)}`));
    let reread: ReturnType<typeof setTimeout> | undefined;
    socket.onConnect(() => {
      setConnected(true);
      setError(null);
      void subscribe();
    });
    socket.on('monitor:group', (p) => {
      if (p.studyId !== studyId) return;
      if (p.kind === 'changed') {
        // A burst of joins reads the monitor once.
        reread ??= setTimeout(() => {
          reread = undefined;
          void subscribe();
        }, 250);
        return;
      }
      setStreaming((s) => applyStreaming(s, p));
      setSnapshot((s) => (s?.groups ? { ...s, groups: applyGroupPush(s.groups, p) } : s));
    });
    socket.onDisconnect(() => setConnected(false));
    socket.onConnectError((message) => setError(message === 'unauthorized' ? 'Your login has ended; reload the page to log in again.' : `Live monitor: ${message}`));
    socket.on('monitor:update', (s) => {
      // A push without groups keeps the groups this page follows live (the server sends them every few seconds).
      if (s.studyId === studyId) setSnapshot((old) => (s.groups || !old?.groups ? s : { ...s, groups: old.groups }));
    });
    socket.on('run:progress', (p) => {
      if (p.studyId === studyId) setRuns((r) => ({ ...r, [p.kind]: p }));
    });
    socket.on('export:progress', (p) => {
      if (p.studyId === studyId) setExportProgress(p);
    });
    return () => {
      clearTimeout(reread);
      socket.close();
    };
  }, [studyId]);

  // The agents' replies streaming now ride along with the snapshot they belong to.
  const live = useMemo<LiveSnapshot | null>(() => (snapshot ? { ...snapshot, streaming } : null), [snapshot, streaming]);
  return { snapshot: live, connected, exportProgress, error, runs };
}
