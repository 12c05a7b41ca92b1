/** Sockets one session may hold open at once (tabs, a reconnect overlapping the old socket). */
export const MAX_SOCKETS_PER_SESSION = 20;
/** New connections one session may open per minute (each writes connection events to the trajectory). */
export const MAX_CONNECTIONS_PER_MINUTE = 60;

/** Flood guard: at most `max` events in any `windowMs` (generous for people, stops scripts). */
export function eventRateLimiter(max = 120, windowMs = 10_000, now: () => number = Date.now): () => boolean {
  const stamps: number[] = [];
  return () => {
    const t = now();
    while (stamps.length > 0 && stamps[0]! <= t - windowMs) stamps.shift();
    if (stamps.length >= max) return false;
    stamps.push(t);
    return true;
  };
}

/**
 * Per-session limits on sockets, checked in the handshake: a token cannot hold more than
 * MAX_SOCKETS_PER_SESSION sockets at once (each has its own event flood guard, so this bounds a
 * session's total event rate), nor reconnect in a loop to spam connection events into its trajectory.
 * `openSockets` reports the session's connected sockets (its socket.io room), so the count never drifts.
 */
export class SessionConnectionGuard {
  private readonly entries = new Map<string, { allow: () => boolean; lastUsed: number }>();
  private readonly windowMs = 60_000;

  constructor(
    private readonly openSockets: (sessionId: string) => number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Why a new connection of this session is refused, or null to accept it. */
  admit(sessionId: string): string | null {
    this.sweep();
    if (this.openSockets(sessionId) >= MAX_SOCKETS_PER_SESSION) return 'too many connections for this session';
    let entry = this.entries.get(sessionId);
    if (!entry) {
      entry = { allow: eventRateLimiter(MAX_CONNECTIONS_PER_MINUTE, this.windowMs, this.now), lastUsed: 0 };
      this.entries.set(sessionId, entry);
    }
    entry.lastUsed = this.now();
    return entry.allow() ? null : 'rate_limited';
  }

  private sweep(): void {
    const cutoff = this.now() - this.windowMs;
    for (const [id, e] of this.entries) if (e.lastUsed <= cutoff) this.entries.delete(id);
  }
}
