import type { SessionTelemetryRepo, SessionTelemetryRow } from '../../contract/store';
import { sessionTelemetryValues, toSessionTelemetry, type SessionTelemetryRaw } from '../../rows/sessionTelemetry';
import type { Runner } from '../connection';

/** Integrity telemetry per session (table session_telemetry): one row, replaced per accepted batch. */
export class PgSessionTelemetry implements SessionTelemetryRepo {
  constructor(private readonly db: Runner) {}

  async get(sessionId: string): Promise<SessionTelemetryRow | undefined> {
    const r = await this.db.one<SessionTelemetryRaw>('SELECT * FROM session_telemetry WHERE session_id = $1', [sessionId]);
    return r && toSessionTelemetry(r);
  }

  async put(row: SessionTelemetryRow): Promise<void> {
    await this.db.run(
      `INSERT INTO session_telemetry (session_id, summary, batches, bytes, updated_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (session_id) DO UPDATE SET summary = excluded.summary, batches = excluded.batches, bytes = excluded.bytes, updated_at = excluded.updated_at`,
      sessionTelemetryValues(row),
    );
  }
}
