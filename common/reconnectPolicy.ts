/**
 * What the participant page does when the server refuses its socket in the handshake. socket.io
 * reconnects by itself after a lost transport, but not after a refusal from the server's middleware
 * (connect_error with the socket no longer active): the page would sit on "reconnecting" until reloaded.
 * Refusals other than "unauthorized" (rate limit, too many sockets for the session — see
 * server/socket/sessionBudget.ts) are temporary, so the page retries with exponential backoff.
 */

/** The server's connect_error messages (server/socket/handlers.ts, sessionBudget.ts). */
export const REFUSAL_UNAUTHORIZED = 'unauthorized';
export const REFUSAL_RATE_LIMITED = 'rate_limited';
export const REFUSAL_TOO_MANY_CONNECTIONS = 'too many connections for this session';

export interface BackoffOptions {
  /** Delay before the first retry (default 1 s). */
  baseMs?: number;
  /** Largest delay (default 30 s: the server's connection budget is per minute). */
  maxMs?: number;
  /** Source of jitter in [0, 1); the default is Math.random. */
  random?: () => number;
}

/**
 * Delay before retry number `attempt` (0-based): base · 2^attempt, capped at maxMs, with "equal
 * jitter" (between half and all of it) so many pages refused at once do not come back in lockstep.
 */
export function retryDelayMs(attempt: number, options: BackoffOptions = {}): number {
  const base = options.baseMs ?? 1_000;
  const max = options.maxMs ?? 30_000;
  const random = options.random ?? Math.random;
  const ceiling = Math.min(max, base * 2 ** Math.min(Math.max(0, attempt), 30));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

/** A short message for the participant (it sits in the page header) while the page waits to retry. */
export function refusalNotice(reason: string): string {
  if (reason === REFUSAL_TOO_MANY_CONNECTIONS) return 'Open in too many tabs — please close the others. Reconnecting by itself…';
  if (reason === REFUSAL_RATE_LIMITED) return 'Too many reconnects — trying again in a moment…';
  return 'The server refused the connection — trying again in a moment…';
}
