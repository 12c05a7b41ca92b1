/**
 * The dataset export's snapshot on PostgreSQL: one pooled client in a REPEATABLE READ READ ONLY transaction
 * (every file of the export sees the same data; writers are never blocked). Row streams are server-side
 * cursors (DECLARE … CURSOR, FETCH in batches), so memory stays bounded by the batch size whatever the study
 * size, and several cursors can be open at once on the one client (the sessions stream stays open while each
 * session's messages and events are read). Queries are lib/storage/sql/exportSnapshot.ts's, as on SQLite.
 */
import type { RawReviewExport } from '../rows/reviewExport';
import { EXPORT_SQL } from '../sql/exportSnapshot';
import type pg from 'pg';
import type {
  AuditCounts,
  AuditEntry,
  ExportAnnotation,
  ExportArtifact,
  ExportEvent,
  ExportGroupJudgement,
  ExportIdentity,
  ExportJudgement,
  ExportMessage,
  ExportSessionRow,
  ExportSnapshot,
  ExportUpload,
} from '../contract/store';
import type { TelemetrySummary } from '../../../common/telemetrySummary';
import { toAuditEntry } from '../rows/audit';
import { toExportAnnotation, toExportArtifact, toExportEvent, toExportGroupJudgement, toExportJudgement, toExportMessage, toExportSession, toExportTelemetry, toExportUpload, type ExportAnnotationRaw, type ExportArtifactRaw, type ExportEventRaw, type ExportGroupJudgementRaw, type ExportJudgementRaw, type ExportMessageRaw, type ExportSessionRaw, type ExportTelemetryRaw, type ExportUploadRaw } from '../rows/exportSnapshot';
import { toIdentityRow, type IdentityRaw } from '../rows/identities';
import { toTombstoneSet } from '../rows/withdrawals';
import { ClientRunner } from './connection';
import { isConnectionError, toStoreError } from './errors';
import { auditCounts, listAudit } from './repositories/audit';
import { PgGroups } from './repositories/groups';
import { PgPreregistrations } from './repositories/preregistrations';

/** Rows fetched per round trip of a cursor. */
export const EXPORT_CURSOR_BATCH = 500;

class PgExportSnapshot implements ExportSnapshot {
  private readonly db: ClientRunner;
  private cursors = 0;
  private closed = false;
  private broken: Error | undefined;
  private readonly onError = (err: Error): void => {
    this.broken = err;
  };

  constructor(
    private readonly client: pg.PoolClient,
    readonly batchSize: number,
  ) {
    this.db = new ClientRunner(client);
    this.groups = new PgGroups(this.db);
    this.preregistrations = new PgPreregistrations(this.db);
    client.on('error', this.onError);
  }

  /** Group sessions, read in the snapshot's transaction. */
  readonly groups: PgGroups;

  /** The locked plan's versions and deviations, read in the snapshot's transaction. */
  readonly preregistrations: PgPreregistrations;

  /** Streams a query's rows through a server-side cursor, batchSize rows per FETCH. */
  private async *cursor<R>(sql: string, params: unknown[]): AsyncGenerator<R> {
    const name = `export_${++this.cursors}`;
    try {
      await this.client.query(`DECLARE ${name} NO SCROLL CURSOR FOR ${sql}`, params);
    } catch (err) {
      throw toStoreError(err, 'export cursor');
    }
    let open = true;
    try {
      for (;;) {
        let rows: R[];
        try {
          rows = (await this.client.query(`FETCH FORWARD ${this.batchSize} FROM ${name}`)).rows as R[];
        } catch (err) {
          open = false;
          throw toStoreError(err, 'export fetch');
        }
        for (const r of rows) yield r;
        if (rows.length < this.batchSize) break;
      }
    } finally {
      // Also when the consumer stops early; COMMIT at close() would drop it anyway.
      if (open && !this.closed && !this.broken) await this.client.query(`CLOSE ${name}`).catch(() => undefined);
    }
  }

  async study(studyId: string): Promise<{ id: string; title: string; status: string } | undefined> {
    return this.db.one(EXPORT_SQL.study.postgres, [studyId]);
  }

  async countSessions(studyId: string, includePilot: boolean): Promise<number> {
    return (await this.db.one<{ n: number }>(EXPORT_SQL.countSessions.postgres, [studyId, includePilot]))!.n;
  }

  async countPilotSessions(studyId: string): Promise<number> {
    return (await this.db.one<{ n: number }>(EXPORT_SQL.countPilotSessions.postgres, [studyId]))!.n;
  }

  async likertItemIds(studyId: string): Promise<string[]> {
    const rows = await this.db.rows<{ item_id: string }>(EXPORT_SQL.likertItemIds.postgres, [studyId]);
    return rows.map((r) => r.item_id);
  }

  async *sessions(studyId: string, includePilot: boolean): AsyncGenerator<ExportSessionRow> {
    const rows = this.cursor<ExportSessionRaw>(EXPORT_SQL.sessions.postgres, [studyId, includePilot]);
    for await (const r of rows) yield toExportSession(r);
  }

  async identity(sessionId: string): Promise<ExportIdentity | undefined> {
    const r = await this.db.one<IdentityRaw>(EXPORT_SQL.identity.postgres, [sessionId]);
    return r && toIdentityRow(r);
  }

  async *identities(studyId: string): AsyncGenerator<ExportIdentity & { sessionId: string }> {
    for await (const r of this.cursor<IdentityRaw>(EXPORT_SQL.identities.postgres, [studyId])) {
      yield toIdentityRow(r);
    }
  }

  async *messages(sessionId: string): AsyncGenerator<ExportMessage> {
    let seq = 0;
    const rows = this.cursor<ExportMessageRaw & RawReviewExport>(EXPORT_SQL.messages.postgres, [sessionId]);
    for await (const r of rows) yield toExportMessage(r, ++seq);
  }

  async *events(sessionId: string): AsyncGenerator<ExportEvent> {
    const rows = this.cursor<ExportEventRaw>(EXPORT_SQL.events.postgres, [sessionId]);
    for await (const r of rows) yield toExportEvent(r);
  }

  async artifacts(sessionId: string): Promise<ExportArtifact[]> {
    const rows = await this.db.rows<ExportArtifactRaw>(EXPORT_SQL.artifacts.postgres, [sessionId]);
    return rows.map(toExportArtifact);
  }

  async uploads(sessionId: string): Promise<ExportUpload[]> {
    const rows = await this.db.rows<ExportUploadRaw>(EXPORT_SQL.uploads.postgres, [sessionId]);
    return rows.map(toExportUpload);
  }

  async *judgements(sessionId: string): AsyncGenerator<ExportJudgement> {
    const rows = this.cursor<ExportJudgementRaw>(EXPORT_SQL.judgements.postgres, [sessionId]);
    for await (const r of rows) yield toExportJudgement(r, sessionId);
  }

  async *groupJudgements(groupId: string): AsyncGenerator<ExportGroupJudgement> {
    const rows = this.cursor<ExportGroupJudgementRaw>(EXPORT_SQL.groupJudgements.postgres, [groupId]);
    for await (const r of rows) yield toExportGroupJudgement(r, groupId);
  }

  async groupQuality(groupId: string): Promise<number | null> {
    return (await this.db.one<{ quality: number | null }>(EXPORT_SQL.groupQuality.postgres, [groupId]))?.quality ?? null;
  }

  async *annotations(sessionId: string): AsyncGenerator<ExportAnnotation> {
    const rows = this.cursor<ExportAnnotationRaw>(EXPORT_SQL.annotations.postgres, [sessionId]);
    for await (const r of rows) yield toExportAnnotation(r);
  }

  async telemetry(sessionId: string): Promise<{ summary: TelemetrySummary; batches: number } | undefined> {
    const r = await this.db.one<ExportTelemetryRaw>(EXPORT_SQL.telemetry.postgres, [sessionId]);
    return r && toExportTelemetry(r);
  }

  async simulatedSessions(studyId: string): Promise<Set<string>> {
    return new Set((await this.db.rows<{ id: string }>(EXPORT_SQL.simulatedSessions.postgres, [studyId])).map((r) => r.id));
  }

  async tombstones(studyId: string): Promise<Set<string>> {
    const rows = await this.db.rows<{ tombstone: string }>(EXPORT_SQL.tombstones.postgres, [studyId]);
    return toTombstoneSet(rows);
  }

  auditCounts(studyId: string): Promise<AuditCounts> {
    return auditCounts(this.db, studyId);
  }

  async auditList(options: { studyId?: string; limit?: number }): Promise<AuditEntry[]> {
    return (await listAudit(this.db, options)).map(toAuditEntry);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.broken) await this.client.query('COMMIT').catch((err: Error) => (this.broken = isConnectionError(err) ? err : undefined));
    this.client.removeListener('error', this.onError);
    this.client.release(this.broken);
  }
}

/** Checks out a client and starts the snapshot transaction on it. */
export async function openPgExportSnapshot(pool: pg.Pool, batchSize = EXPORT_CURSOR_BATCH): Promise<ExportSnapshot> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw toStoreError(err, 'connect');
  }
  const snapshot = new PgExportSnapshot(client, batchSize);
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    // The snapshot is taken by the first statement, not by BEGIN: pin it now, at open.
    await client.query('SELECT 1');
  } catch (err) {
    await snapshot.close();
    throw toStoreError(err, 'begin export snapshot');
  }
  return snapshot;
}
