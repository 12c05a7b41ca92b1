/**
 * PostgreSQL faults as the rest of the server sees them:
 * - `StoreUnavailableError` (retryable): the database could not be reached or the connection died mid-call
 *   (a restart, a failover, a network cut). The pool reconnects by itself; the caller answers the participant
 *   with a retryable error. Whether a write that was in flight committed is unknown to the caller, but a
 *   transaction cut before COMMIT is rolled back by PostgreSQL, and exactly-once writes are idempotent by key.
 * - `describeConnectError(url, err)`: the one line start-up prints when DATABASE_URL cannot be reached.
 */

import { StoreUnavailableError } from '../contract/store';

/** The contract's retryable outage error (lib/storage/contract/store.ts), thrown by the PostgreSQL store. */
export { StoreUnavailableError };

interface PgLikeError {
  code?: string;
  message?: string;
  errno?: number;
  syscall?: string;
  address?: string;
  port?: number;
  errors?: PgLikeError[];
}

/** Node socket error codes that mean "no connection", not "the statement is wrong". */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ENOENT']);

/**
 * Whether err means the connection (not the statement) failed: network errors, the server shutting down
 * (57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now), SQLSTATE class 08 (connection
 * exception), and node-postgres's own "Connection terminated" / timeout errors.
 */
export function isConnectionError(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as PgLikeError;
  if (e.errors?.some(isConnectionError)) return true; // AggregateError from trying several addresses
  const code = e.code ?? '';
  if (NETWORK_CODES.has(code)) return true;
  if (code === '57P01' || code === '57P02' || code === '57P03' || code.startsWith('08')) return true;
  const msg = e.message ?? '';
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|terminating connection/i.test(msg);
}

/** Converts a connection failure into StoreUnavailableError; any other error is returned unchanged. */
export function toStoreError(err: unknown, what: string): unknown {
  if (err instanceof StoreUnavailableError || !isConnectionError(err)) return err;
  return new StoreUnavailableError(`PostgreSQL is unavailable (${what}): ${reasonOf(err)}`, { cause: err });
}

function reasonOf(err: unknown): string {
  const e = err as PgLikeError;
  const inner = e.errors?.[0];
  const msg = (e.message || inner?.message || String(err)).split('\n')[0]!;
  return e.code && !msg.includes(e.code) ? `${msg} (${e.code})` : msg;
}

/** host and port a postgres:// URL names (defaults as libpq: localhost, 5432); never the password. */
export function urlHostPort(url: string): { host: string; port: number; database: string } {
  try {
    const u = new URL(url);
    const host = decodeURIComponent(u.hostname) || u.searchParams.get('host') || 'localhost';
    return { host, port: Number(u.port || 5432), database: decodeURIComponent(u.pathname.replace(/^\//, '')) || '(default)' };
  } catch {
    return { host: '(unparsable URL)', port: 0, database: '' };
  }
}

/** The URL with any password replaced by `***`, for logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable DATABASE_URL)';
  }
}

/**
 * The single line start-up prints (then exits non-zero) when the database cannot be opened, e.g.
 * `cannot reach PostgreSQL at db.lab:5432 (database tandem): connect ECONNREFUSED 10.0.0.5:5432`.
 * Authentication and missing-database errors get the driver's reason the same way.
 */
export function describeConnectError(url: string, err: unknown): string {
  const { host, port, database } = urlHostPort(url);
  const verb = isConnectionError(err) ? 'cannot reach' : 'cannot open';
  return `${verb} PostgreSQL at ${host}:${port} (database ${database}): ${reasonOf(err)}`;
}

/** Thrown by openPostgresStore when the first connection fails; `message` is the one line to print. */
export class DatabaseConnectError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseConnectError';
  }
}
