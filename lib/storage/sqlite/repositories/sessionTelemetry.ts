import { cachedStatement, type SqliteDatabase } from '../database';
import type { SessionTelemetryRepo, SessionTelemetryRow } from '../../contract/store';
import { sessionTelemetryValues, toSessionTelemetry, type SessionTelemetryRaw } from '../../rows/sessionTelemetry';
import type { Sync } from '../sync';

/** Integrity telemetry per session (table session_telemetry): one row, replaced per accepted batch. */
export class SessionTelemetryRepository implements Sync<SessionTelemetryRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  get(sessionId: string): SessionTelemetryRow | undefined {
    const r = cachedStatement(this.db, 'SELECT * FROM session_telemetry WHERE session_id = ?').get(sessionId) as SessionTelemetryRaw | undefined;
    return r && toSessionTelemetry(r);
  }

  put(row: SessionTelemetryRow): void {
    cachedStatement(
      this.db,
      `INSERT INTO session_telemetry (session_id, summary, batches, bytes, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET summary = excluded.summary, batches = excluded.batches, bytes = excluded.bytes, updated_at = excluded.updated_at`,
    ).run(...sessionTelemetryValues(row));
  }
}
