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
 * Both hold across the cluster: `openSockets` counts the session's connected sockets on every node (their
 * socket.io rooms, so the count never drifts) and `connectionAllowed` counts connections in a store shared
 * by the nodes (server/cluster/rateLimitStore.ts). Two handshakes racing on two nodes may both pass the
 * socket count: the bound is approximate by at most the number of nodes.
 */
export class SessionConnectionGuard {
  constructor(
    private readonly openSockets: (sessionId: string) => Promise<number>,
    private readonly connectionAllowed: (sessionId: string) => Promise<boolean>,
  ) {}

  /** Why a new connection of this session is refused, or null to accept it. */
  async admit(sessionId: string): Promise<string | null> {
    if ((await this.openSockets(sessionId)) >= MAX_SOCKETS_PER_SESSION) return 'too many connections for this session';
    return (await this.connectionAllowed(sessionId)) ? null : 'rate_limited';
  }
}
