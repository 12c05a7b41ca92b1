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
 * count; `overBudget` is asked again once the socket is in its room (recheckAfterJoin), and a socket that finds
 * the session over the budget leaves, so the bound holds (racers may both leave; the budget is never exceeded
 * for longer than that second count takes).
 */
export class SessionConnectionGuard {
  constructor(
    private readonly openSockets: (sessionId: string) => Promise<number>,
    private readonly connectionAllowed: (sessionId: string) => Promise<boolean>,
  ) {}

  /** Why a new connection of this session is refused, or null to accept it; `open` is the count it saw. */
  async admit(sessionId: string): Promise<{ refused: string | null; open: number }> {
    const open = await this.openSockets(sessionId);
    if (open >= MAX_SOCKETS_PER_SESSION) return { refused: 'too many connections for this session', open };
    return { refused: (await this.connectionAllowed(sessionId)) ? null : 'rate_limited', open };
  }

  /**
   * Whether a socket admitted when `openAtAdmit` sockets were open must count again after joining its room: only
   * a session already holding half its budget can be pushed over it by racing handshakes (the usual one to three
   * tabs cost no second count).
   */
  static recheckAfterJoin(openAtAdmit: number): boolean {
    return openAtAdmit >= MAX_SOCKETS_PER_SESSION / 2;
  }

  /** The session's sockets over every node, this one included, exceed the budget. */
  async overBudget(sessionId: string): Promise<boolean> {
    return (await this.openSockets(sessionId)) > MAX_SOCKETS_PER_SESSION;
  }
}
