import type { SessionTelemetryRepo, SessionTelemetryRow } from '../../contract/store';
import { sessionTelemetryValues, toSessionTelemetry, type SessionTelemetryRaw } from '../../rows/sessionTelemetry';
import { TELEMETRY_SQL } from '../../sql/participants';
import { SqliteRepository } from '../statements';
import type { Sync } from '../sync';

export class SessionTelemetryRepository extends SqliteRepository implements Sync<SessionTelemetryRepo> {
  get(sessionId: string): SessionTelemetryRow | undefined {
    const r = this.q.one<SessionTelemetryRaw>(TELEMETRY_SQL.get, sessionId);
    return r && toSessionTelemetry(r);
  }

  put(row: SessionTelemetryRow): void {
    this.q.run(TELEMETRY_SQL.put, ...sessionTelemetryValues(row));
  }
}
