/**
 * The PostgreSQL engine's public face (loaded by lib/storage/openStore.ts only for a postgres:// URL).
 */
import { DatabaseConnectError } from './errors';

export { openPostgresStore, type PostgresStoreOptions } from './pgStore';
export { StoreUnavailableError, DatabaseConnectError, describeConnectError, isConnectionError, redactUrl } from './errors';
export { openPostgresSocketAdapter } from './socketAdapter';

/**
 * The one line start-up prints for a store that failed to open, or undefined when err is not such a failure
 * (then it is a bug and deserves its stack). main.ts: `const line = describeStartupError(err); if (line) {
 * console.error(line); process.exit(1); }`.
 */
export function describeStartupError(err: unknown): string | undefined {
  return err instanceof DatabaseConnectError ? err.message : undefined;
}
