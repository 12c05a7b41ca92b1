import { useEffect, useRef, useState } from 'react';
import type { MonitorSnapshot, RunKind, RunProgress } from '../../common/admin';

/**
 * A number that goes up when the study's data has changed: a session moved (monitor push) or a judge
 * or analysis run finished. At most one bump per `minIntervalMs`, so a busy study does not refetch
 * on every keystroke of every participant; a change inside the interval is applied at its end.
 */
export function useLiveVersion(snapshot: MonitorSnapshot | null, runs: Partial<Record<RunKind, RunProgress>>, minIntervalMs = 5000): number {
  const [version, setVersion] = useState(0);
  const lastBump = useRef(0);
  const key = [
    snapshot?.sessions.map((s) => `${s.sessionId}:${s.status}:${s.step}:${s.messages}`).join(',') ?? '',
    runs.judge?.state === 'done' ? `judge@${runs.judge.total}` : '',
    runs.analysis?.state ?? '',
  ].join('|');
  const first = useRef(key);
  useEffect(() => {
    if (key === first.current) return;
    const wait = Math.max(0, lastBump.current + minIntervalMs - Date.now());
    const timer = setTimeout(() => {
      lastBump.current = Date.now();
      setVersion((v) => v + 1);
    }, wait);
    return () => clearTimeout(timer);
  }, [key, minIntervalMs]);
  return version;
}
