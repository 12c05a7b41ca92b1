import type { SessionTelemetryRepo, SessionTelemetryRow } from '../../contract/store';
import { sessionTelemetryValues, toSessionTelemetry, type SessionTelemetryRaw } from '../../rows/sessionTelemetry';
import { TELEMETRY_SQL } from '../../sql/participants';
import type { Runner } from '../connection';

/** Integrity telemetry per session (table session_telemetry): one row, replaced per accepted batch. */
export class PgSessionTelemetry implements SessionTelemetryRepo {
  constructor(private readonly db: Runner) {}

  async get(sessionId: string): Promise<SessionTelemetryRow | undefined> {
    const r = await this.db.one<SessionTelemetryRaw>(TELEMETRY_SQL.get.postgres, [sessionId]);
    return r && toSessionTelemetry(r);
  }

  async put(row: SessionTelemetryRow): Promise<void> {
    await this.db.run(TELEMETRY_SQL.put.postgres, sessionTelemetryValues(row));
  }
}
