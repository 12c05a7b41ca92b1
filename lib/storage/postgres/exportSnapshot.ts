/**
 * The dataset export's snapshot on PostgreSQL: one pooled client in a REPEATABLE READ READ ONLY transaction
 * (every file of the export sees the same data; writers are never blocked). Row streams are server-side
 * cursors (DECLARE … CURSOR, FETCH in batches), so memory stays bounded by the batch size whatever the study
 * size, and several cursors can be open at once on the one client (the sessions stream stays open while each
 * session's messages and events are read). Queries and row shapes mirror lib/storage/sqlite/exportSnapshot.ts.
 */
import { REVIEW_EXPORT_COLUMNS, REVIEW_EXPORT_JOIN, type RawReviewExport } from '../rows/reviewExport';
import type pg from 'pg';
import type {
  AuditCounts,
  AuditEntry,
  ExportAnnotation,
  ExportArtifact,
  ExportEvent,
  ExportIdentity,
  ExportJudgement,
  ExportMessage,
  ExportSessionRow,
  ExportSnapshot,
  ExportUpload,
} from '../contract/store';
import type { TelemetrySummary } from '../../../common/telemetrySummary';
import { toAuditEntry } from '../rows/audit';
import { toExportAnnotation, toExportArtifact, toExportEvent, toExportJudgement, toExportMessage, toExportSession, toExportTelemetry, toExportUpload, type ExportAnnotationRaw, type ExportArtifactRaw, type ExportEventRaw, type ExportJudgementRaw, type ExportMessageRaw, type ExportSessionRaw, type ExportTelemetryRaw, type ExportUploadRaw } from '../rows/exportSnapshot';
import { toIdentityRow, type IdentityRaw } from '../rows/identities';
import { toTombstoneSet } from '../rows/withdrawals';
import { ClientRunner } from './connection';
import { isConnectionError, toStoreError } from './errors';
import { auditCounts, listAudit } from './repositories/audit';
import { PgGroups } from './repositories/groups';

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
    client.on('error', this.onError);
  }

  /** Group sessions, read in the snapshot's transaction. */
  readonly groups: PgGroups;

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
    return this.db.one('SELECT id, title, status FROM studies WHERE id = $1', [studyId]);
  }

  async countSessions(studyId: string, includePilot: boolean): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM sessions WHERE study_id = $1 AND (is_pilot = 0 OR $2)', [studyId, includePilot]))!.n;
  }

  async countPilotSessions(studyId: string): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM sessions WHERE study_id = $1 AND is_pilot = 1', [studyId]))!.n;
  }

  async likertItemIds(studyId: string): Promise<string[]> {
    const rows = await this.db.rows<{ item_id: string }>(
      `SELECT DISTINCT a.item_id FROM survey_answers a JOIN sessions s ON s.id = a.session_id
       WHERE s.study_id = $1 AND a.item_kind = 'likert' ORDER BY a.item_id`,
      [studyId],
    );
    return rows.map((r) => r.item_id);
  }

  async *sessions(studyId: string, includePilot: boolean): AsyncGenerator<ExportSessionRow> {
    const rows = this.cursor<ExportSessionRaw>(
      `SELECT s.id, s.task_id, s.condition_id, s.status, s.is_pilot, s.created_at, s.consented_at, s.submitted_at,
         (SELECT COALESCE(SUM(m.tokens), 0) FROM messages m WHERE m.session_id = s.id AND m.role = 'user') AS user_tokens,
         (SELECT COALESCE(SUM(m.tokens), 0) FROM messages m WHERE m.session_id = s.id AND m.role = 'assistant') AS agent_tokens,
         (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id AND m.role = 'user') AS user_turns,
         (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id AND m.role = 'assistant') AS agent_turns,
         (SELECT q.quality FROM judge_quality q WHERE q.session_id = s.id) AS quality,
         (SELECT json_agg(json_build_array(a.item_id, a.item_kind, a.value_num) ORDER BY a.item_id) FROM survey_answers a
            WHERE a.session_id = s.id AND a.value_num IS NOT NULL) AS answers
       FROM sessions s
       WHERE s.study_id = $1 AND (s.is_pilot = 0 OR $2)
       ORDER BY s.created_at, s.id`,
      [studyId, includePilot],
    );
    for await (const r of rows) yield toExportSession(r);
  }

  async identity(sessionId: string): Promise<ExportIdentity | undefined> {
    const r = await this.db.one<IdentityRaw>('SELECT * FROM identities WHERE session_id = $1', [sessionId]);
    return r && toIdentityRow(r);
  }

  async *identities(studyId: string): AsyncGenerator<ExportIdentity & { sessionId: string }> {
    for await (const r of this.cursor<IdentityRaw>('SELECT * FROM identities WHERE study_id = $1 ORDER BY created_at, session_id', [studyId])) {
      yield toIdentityRow(r);
    }
  }

  async *messages(sessionId: string): AsyncGenerator<ExportMessage> {
    let seq = 0;
    const rows = this.cursor<ExportMessageRaw & RawReviewExport>(
      `SELECT m.role, m.text, m.created_at, m.tokens, m.model, m.ttft_ms, m.duration_ms, m.finish_reason, m.interrupted, m.status, ${REVIEW_EXPORT_COLUMNS}
       FROM messages m ${REVIEW_EXPORT_JOIN} WHERE m.session_id = $1 ORDER BY m.event_seq, m.created_at, m.id`,
      [sessionId],
    );
    for await (const r of rows) yield toExportMessage(r, ++seq);
  }

  async *events(sessionId: string): AsyncGenerator<ExportEvent> {
    const rows = this.cursor<ExportEventRaw>('SELECT seq, type, payload, server_ts, client_ts FROM events WHERE session_id = $1 ORDER BY seq', [sessionId]);
    for await (const r of rows) yield toExportEvent(r);
  }

  async artifacts(sessionId: string): Promise<ExportArtifact[]> {
    const rows = await this.db.rows<ExportArtifactRaw>('SELECT version, fields, submitted_at FROM artifacts WHERE session_id = $1 ORDER BY version', [sessionId]);
    return rows.map(toExportArtifact);
  }

  async uploads(sessionId: string): Promise<ExportUpload[]> {
    const rows = await this.db.rows<ExportUploadRaw>(
      'SELECT id, field_id, file_name, content_type, storage_path FROM uploads WHERE session_id = $1 ORDER BY created_at, id',
      [sessionId],
    );
    return rows.map(toExportUpload);
  }

  async *judgements(sessionId: string): AsyncGenerator<ExportJudgement> {
    const rows = this.cursor<ExportJudgementRaw>(
      `SELECT artifact_version, rubric_id, rubric_hash, COALESCE(reported_model, requested_model) AS model, sample, score, parse_ok, cached, images
       FROM judgements WHERE session_id = $1 ORDER BY artifact_version, rubric_id, requested_model, sample`,
      [sessionId],
    );
    for await (const r of rows) yield toExportJudgement(r, sessionId);
  }

  async *annotations(sessionId: string): AsyncGenerator<ExportAnnotation> {
    const rows = this.cursor<ExportAnnotationRaw>(
      'SELECT turn, speaker, friction, grounding FROM annotations WHERE session_id = $1 AND friction IS NOT NULL ORDER BY turn',
      [sessionId],
    );
    for await (const r of rows) yield toExportAnnotation(r);
  }

  async telemetry(sessionId: string): Promise<{ summary: TelemetrySummary; batches: number } | undefined> {
    const r = await this.db.one<ExportTelemetryRaw>('SELECT summary, batches FROM session_telemetry WHERE session_id = $1', [sessionId]);
    return r && toExportTelemetry(r);
  }

  async tombstones(studyId: string): Promise<Set<string>> {
    const rows = await this.db.rows<{ tombstone: string }>('SELECT tombstone FROM withdrawals WHERE study_id = $1', [studyId]);
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
