import { useEffect, useState } from 'react';
import type { GroupView } from '../../../common/groupEvents';

type Waiting = Extract<GroupView, { state: 'waiting' }>;

/** The waiting room: how many wait (a count, never who) and the server's countdown. */
export function GroupLobby({ view, clockOffsetMs }: { view: Waiting; clockOffsetMs: number }) {
  const [now, setNow] = useState(() => Date.now() + clockOffsetMs);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now() + clockOffsetMs), 500);
    return () => clearInterval(timer);
  }, [clockOffsetMs]);
  const seconds = Math.max(0, Math.ceil((view.deadline - now) / 1000));
  return (
    <section className="group-lobby" aria-labelledby="lobby-title">
      <h1 id="lobby-title" tabIndex={-1}>
        Waiting for your group
      </h1>
      <p role="status" data-testid="lobby-count">
        {view.waiting} of {view.size.max} people here
      </p>
      <p data-testid="lobby-countdown">
        {seconds > 0 ? `The group starts within ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}.` : 'Starting…'}
      </p>
      <p className="help">Keep this page open. You need not do anything: the group starts by itself.</p>
    </section>
  );
}

/** The lobby timed out without a group: the completion code pays for the wait. */
export function GroupReleased({ view }: { view: Extract<GroupView, { state: 'released' }> }) {
  return (
    <section aria-labelledby="released-title">
      <h1 id="released-title" tabIndex={-1}>
        No group could be formed
      </h1>
      <p>Thank you for waiting. Your completion code is:</p>
      <p className="completion-code" data-testid="lobby-code">
        {view.code}
      </p>
      {view.redirectUrl && <a href={view.redirectUrl}>Return to the study platform</a>}
    </section>
  );
}
