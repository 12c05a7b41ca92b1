import { cachedStatement, type SqliteDatabase } from '../../database';
import type { SessionTelemetryRepo, SessionTelemetryRow } from '../../storeInterface';
import type { TelemetrySummary } from '../../../../common/telemetrySummary';
import type { Sync } from '../sync';

interface Raw {
  session_id: string;
  summary: string;
  batches: number;
  bytes: number;
  updated_at: number;
}

export const telemetryRowOf = (r: Raw): SessionTelemetryRow => ({
  sessionId: r.session_id,
  summary: JSON.parse(r.summary) as TelemetrySummary,
  batches: r.batches,
  bytes: r.bytes,
  updatedAt: r.updated_at,
});

/** Integrity telemetry per session (table session_telemetry): one row, replaced per accepted batch. */
export class SessionTelemetryRepository implements Sync<SessionTelemetryRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  get(sessionId: string): SessionTelemetryRow | undefined {
    const r = cachedStatement(this.db, 'SELECT * FROM session_telemetry WHERE session_id = ?').get(sessionId) as Raw | undefined;
    return r && telemetryRowOf(r);
  }

  put(row: SessionTelemetryRow): void {
    cachedStatement(
      this.db,
      `INSERT INTO session_telemetry (session_id, summary, batches, bytes, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET summary = excluded.summary, batches = excluded.batches, bytes = excluded.bytes, updated_at = excluded.updated_at`,
    ).run(row.sessionId, JSON.stringify(row.summary), row.batches, row.bytes, row.updatedAt);
  }
}
