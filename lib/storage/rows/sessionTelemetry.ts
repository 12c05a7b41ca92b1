/** The `session_telemetry` row (migration 009) as both engines return it (`summary` is JSON TEXT on each), its mapping and upsert values. */
import type { TelemetrySummary } from '../../../common/telemetrySummary';
import type { SessionTelemetryRow } from '../contract/store';

export interface SessionTelemetryRaw {
  session_id: string;
  summary: string;
  batches: number;
  bytes: number;
  updated_at: number;
}

export const toSessionTelemetry = (r: SessionTelemetryRaw): SessionTelemetryRow => ({
  sessionId: r.session_id,
  summary: JSON.parse(r.summary) as TelemetrySummary,
  batches: r.batches,
  bytes: r.bytes,
  updatedAt: r.updated_at,
});

/** Upsert values in the column order session_id, summary, batches, bytes, updated_at. */
export const sessionTelemetryValues = (row: SessionTelemetryRow) =>
  [row.sessionId, JSON.stringify(row.summary), row.batches, row.bytes, row.updatedAt] as const;
