import Database from 'better-sqlite3';
import { REVIEW_EXPORT_COLUMNS, REVIEW_EXPORT_JOIN, type RawReviewExport } from '../rows/reviewExport';
import type { TelemetrySummary } from '../../../common/telemetrySummary';
import type { SqliteDatabase } from './database';
import { AuditRepository } from './repositories/audit';
import { GroupsRepository } from './repositories/groups';
import type { ExportGroups } from '../contract/exportSnapshot';
import { toIdentityRow, type IdentityRaw } from '../rows/identities';
import { toExportAnnotation, toExportArtifact, toExportEvent, toExportJudgement, toExportMessage, toExportSession, toExportTelemetry, toExportUpload, type ExportAnnotationRaw, type ExportArtifactRaw, type ExportEventRaw, type ExportJudgementRaw, type ExportMessageRaw, type ExportSessionRaw, type ExportTelemetryRaw, type ExportUploadRaw } from '../rows/exportSnapshot';
import { toTombstoneSet } from '../rows/withdrawals';
import { settle } from './sync';
import type { AuditCounts, AuditEntry, ExportAnnotation, ExportSnapshot, ExportArtifact, ExportEvent, ExportIdentity, ExportJudgement, ExportMessage, ExportSessionRow, ExportUpload } from '../contract/store';

/** Re-yields a synchronous iterator as an async one (the SQLite reads are synchronous; the consumer awaits between rows). */
async function* asAsync<T>(rows: Iterable<T>): AsyncGenerator<T> {
  for (const row of rows) yield row;
}

/**
 * Read-only queries for the dataset export, on a connection of its own: the export keeps iterators
 * open across awaits (streams draining), which would block the server's writes on a shared connection,
 * and one read transaction gives every file the same snapshot (WAL readers never block the writer).
 * All per-session reads are iterators or small lookups, so memory does not grow with the study size.
 */
export class ExportReader {
  private readonly hasJudgeQuality: boolean;
  private readonly hasJudgements: boolean;
  private readonly hasJudgementImages: boolean;
  private readonly hasAnnotations: boolean;
  private readonly hasTelemetry: boolean;
  private inSnapshot = false;
  private readonly statements = new Map<string, Database.Statement>();

  /** Prepared once per reader: the export runs the same per-session queries for every session. */
  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  private constructor(private readonly db: SqliteDatabase) {
    this.hasJudgeQuality = this.hasTable('judge_quality');
    this.hasJudgements = this.hasTable('judgements');
    // The reader is read-only and does not migrate: a database from before migration 012 has no images column.
    this.hasJudgementImages = this.hasJudgements && this.hasColumn('judgements', 'images');
    this.hasAnnotations = this.hasTable('annotations');
    this.hasTelemetry = this.hasTable('session_telemetry');
  }

  static open(file: string): ExportReader {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    return new ExportReader(db);
  }

  /** The group tables in this snapshot, or none in a database from before migration 028. */
  groups(): ExportGroups {
    const has = this.hasTable('study_groups');
    const repo = new GroupsRepository(this.db);
    return {
      listGroups: (id) => settle(() => (has ? repo.listGroups(id) : [])),
      listMembers: (id) => settle(() => (has ? repo.listMembers(id) : [])),
      listEvents: (id) => settle(() => (has ? repo.listEvents(id) : [])),
      listMessages: (id, after) => settle(() => (has ? repo.listMessages(id, after) : [])),
      listLobbyEntries: (id) => settle(() => (has ? repo.listLobbyEntries(id) : [])),
    };
  }

  private hasTable(name: string): boolean {
    return this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
  }

  private hasColumn(table: string, column: string): boolean {
    return (this.db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).some((c) => c.name === column);
  }

  /** Starts the read transaction all later reads share. */
  beginSnapshot(): void {
    this.db.exec('BEGIN');
    this.db.prepare('SELECT COUNT(*) FROM sessions').get(); // a read pins the WAL snapshot now
    this.inSnapshot = true;
  }

  close(): void {
    if (this.inSnapshot && this.db.inTransaction) this.db.exec('COMMIT');
    this.inSnapshot = false;
    if (this.db.open) this.db.close();
  }

  get tables(): { judgements: boolean; annotations: boolean } {
    return { judgements: this.hasJudgements, annotations: this.hasAnnotations };
  }

  study(studyId: string): { id: string; title: string; status: string } | undefined {
    return this.db.prepare('SELECT id, title, status FROM studies WHERE id = ?').get(studyId) as { id: string; title: string; status: string } | undefined;
  }

  countSessions(studyId: string, includePilot: boolean): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM sessions WHERE study_id = ? AND (is_pilot = 0 OR ?)').get(studyId, includePilot ? 1 : 0) as { n: number }).n;
  }

  /** Ids of Likert items answered in the study, sorted (used when no survey definition is given). */
  likertItemIds(studyId: string): string[] {
    const rows = this.db
      .prepare(
        `SELECT DISTINCT a.item_id FROM survey_answers a JOIN sessions s ON s.id = a.session_id
         WHERE s.study_id = ? AND a.item_kind = 'likert' ORDER BY a.item_id`,
      )
      .all(studyId) as { item_id: string }[];
    return rows.map((r) => r.item_id);
  }

  /** The audit log on this connection (read only), when the table exists. */
  auditRepository(): AuditRepository | null {
    return this.hasTable('audit_log') ? new AuditRepository(this.db) : null;
  }

  auditCounts(studyId: string): AuditCounts {
    return this.auditRepository()?.counts(studyId) ?? { total: 0, byAction: {}, firstAt: null, lastAt: null };
  }

  auditList(options: { studyId?: string; limit?: number }): AuditEntry[] {
    return this.auditRepository()?.list(options) ?? [];
  }

  countPilotSessions(studyId: string): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM sessions WHERE study_id = ? AND is_pilot = 1').get(studyId) as { n: number }).n;
  }

  /** Sessions of the study in creation order, with their per-session aggregates computed by SQLite. */
  *sessions(studyId: string, includePilot: boolean): Generator<ExportSessionRow> {
    const quality = this.hasJudgeQuality ? '(SELECT q.quality FROM judge_quality q WHERE q.session_id = s.id)' : 'NULL';
    const stmt = this.db.prepare(`
      SELECT s.id, s.task_id, s.condition_id, s.status, s.is_pilot, s.created_at, s.consented_at, s.submitted_at,
        (SELECT COALESCE(SUM(m.tokens), 0) FROM messages m WHERE m.session_id = s.id AND m.role = 'user') AS user_tokens,
        (SELECT COALESCE(SUM(m.tokens), 0) FROM messages m WHERE m.session_id = s.id AND m.role = 'assistant') AS agent_tokens,
        (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id AND m.role = 'user') AS user_turns,
        (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id AND m.role = 'assistant') AS agent_turns,
        ${quality} AS quality,
        (SELECT json_group_array(json_array(a.item_id, a.item_kind, a.value_num)) FROM survey_answers a
           WHERE a.session_id = s.id AND a.value_num IS NOT NULL) AS answers
      FROM sessions s
      WHERE s.study_id = ? AND (s.is_pilot = 0 OR ?)
      ORDER BY s.created_at, s.id`);
    for (const r of stmt.iterate(studyId, includePilot ? 1 : 0) as IterableIterator<ExportSessionRaw>) yield toExportSession(r);
  }

  identity(sessionId: string): ExportIdentity | undefined {
    const r = this.stmt('SELECT * FROM identities WHERE session_id = ?').get(sessionId) as IdentityRaw | undefined;
    return r && toIdentityRow(r);
  }

  /** Every identity of the study (for the redaction matcher). */
  *identities(studyId: string): Generator<ExportIdentity & { sessionId: string }> {
    const stmt = this.db.prepare('SELECT * FROM identities WHERE study_id = ?');
    for (const r of stmt.iterate(studyId) as IterableIterator<IdentityRaw>) yield toIdentityRow(r);
  }

  /** Messages in trajectory order; seq is the 1-based position within the session. */
  *messages(sessionId: string): Generator<ExportMessage> {
    const stmt = this.stmt(
      `SELECT m.role, m.text, m.created_at, m.tokens, m.model, m.ttft_ms, m.duration_ms, m.finish_reason, m.interrupted, m.status, ${REVIEW_EXPORT_COLUMNS}
       FROM messages m ${REVIEW_EXPORT_JOIN} WHERE m.session_id = ? ORDER BY m.event_seq, m.rowid`,
    );
    let seq = 0;
    for (const r of stmt.iterate(sessionId) as IterableIterator<ExportMessageRaw & RawReviewExport>) yield toExportMessage(r, ++seq);
  }

  *events(sessionId: string): Generator<ExportEvent> {
    const stmt = this.stmt('SELECT seq, type, payload, server_ts, client_ts FROM events WHERE session_id = ? ORDER BY seq');
    for (const r of stmt.iterate(sessionId) as IterableIterator<ExportEventRaw>) yield toExportEvent(r);
  }

  artifacts(sessionId: string): ExportArtifact[] {
    const rows = this.stmt('SELECT version, fields, submitted_at FROM artifacts WHERE session_id = ? ORDER BY version').all(sessionId) as ExportArtifactRaw[];
    return rows.map(toExportArtifact);
  }

  uploads(sessionId: string): ExportUpload[] {
    const rows = this
      .stmt('SELECT id, field_id, file_name, content_type, storage_path FROM uploads WHERE session_id = ? ORDER BY created_at, id')
      .all(sessionId) as ExportUploadRaw[];
    return rows.map(toExportUpload);
  }

  *judgements(sessionId: string): Generator<ExportJudgement> {
    if (!this.hasJudgements) return;
    const stmt = this.stmt(
      `SELECT artifact_version, rubric_id, rubric_hash, COALESCE(reported_model, requested_model) AS model, sample, score, parse_ok, cached,
         ${this.hasJudgementImages ? 'images' : 'NULL AS images'}
       FROM judgements WHERE session_id = ? ORDER BY artifact_version, rubric_id, requested_model, sample`,
    );
    for (const r of stmt.iterate(sessionId) as IterableIterator<ExportJudgementRaw>) yield toExportJudgement(r, sessionId);
  }

  *annotations(sessionId: string): Generator<ExportAnnotation> {
    if (!this.hasAnnotations) return;
    const stmt = this.stmt('SELECT turn, speaker, friction, grounding FROM annotations WHERE session_id = ? AND friction IS NOT NULL ORDER BY turn');
    for (const r of stmt.iterate(sessionId) as IterableIterator<ExportAnnotationRaw>) yield toExportAnnotation(r);
  }

  /** Integrity telemetry summary (table from migration 009; absent in older files). */
  telemetry(sessionId: string): { summary: TelemetrySummary; batches: number } | undefined {
    if (!this.hasTelemetry) return undefined;
    const r = this.stmt('SELECT summary, batches FROM session_telemetry WHERE session_id = ?').get(sessionId) as ExportTelemetryRaw | undefined;
    return r && toExportTelemetry(r);
  }

  /** Tombstones of withdrawn participants (table from migration 020; absent in older files). */
  tombstones(studyId: string): Set<string> {
    if (!this.hasTable('withdrawals')) return new Set();
    const rows = this.db.prepare('SELECT tombstone FROM withdrawals WHERE study_id = ?').all(studyId) as { tombstone: string }[];
    return toTombstoneSet(rows);
  }
}

/** The export snapshot of the store contract over a read-only connection to `file` (one WAL read transaction). */
export function openSqliteExportSnapshot(file: string): ExportSnapshot {
  const reader = ExportReader.open(file);
  try {
    reader.beginSnapshot();
  } catch (err) {
    reader.close();
    throw err;
  }
  return {
    study: (id) => settle(() => reader.study(id)),
    countSessions: (id, pilot) => settle(() => reader.countSessions(id, pilot)),
    countPilotSessions: (id) => settle(() => reader.countPilotSessions(id)),
    likertItemIds: (id) => settle(() => reader.likertItemIds(id)),
    sessions: (id, pilot) => asAsync(reader.sessions(id, pilot)),
    identity: (id) => settle(() => reader.identity(id)),
    identities: (id) => asAsync(reader.identities(id)),
    messages: (id) => asAsync(reader.messages(id)),
    events: (id) => asAsync(reader.events(id)),
    artifacts: (id) => settle(() => reader.artifacts(id)),
    uploads: (id) => settle(() => reader.uploads(id)),
    judgements: (id) => asAsync(reader.judgements(id)),
    annotations: (id) => asAsync(reader.annotations(id)),
    telemetry: (id) => settle(() => reader.telemetry(id)),
    tombstones: (id) => settle(() => reader.tombstones(id)),
    auditCounts: (id) => settle(() => reader.auditCounts(id)),
    auditList: (options) => settle(() => reader.auditList(options)),
    groups: reader.groups(),
    close: () => settle(() => reader.close()),
  };
}
