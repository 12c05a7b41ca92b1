import type { SessionTelemetryRepo, SessionTelemetryRow } from '../../contract/store';
import { sessionTelemetryValues, toSessionTelemetry, type SessionTelemetryRaw } from '../../rows/sessionTelemetry';
import { TELEMETRY_SQL } from '../../sql/participants';
import type { SqliteDatabase } from '../database';
import { Statements } from '../statements';
import type { Sync } from '../sync';

export class SessionTelemetryRepository implements Sync<SessionTelemetryRepo> {
  private readonly q: Statements;
  constructor(db: SqliteDatabase) {
    this.q = new Statements(db);
  }

  get(sessionId: string): SessionTelemetryRow | undefined {
    const r = this.q.one<SessionTelemetryRaw>(TELEMETRY_SQL.get, sessionId);
    return r && toSessionTelemetry(r);
  }

  put(row: SessionTelemetryRow): void {
    this.q.run(TELEMETRY_SQL.put, ...sessionTelemetryValues(row));
  }
}
