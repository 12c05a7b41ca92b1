import Database from 'better-sqlite3';
import type { RawReviewExport } from '../rows/reviewExport';
import { EXPORT_SQL } from '../sql/exportSnapshot';
import type { TelemetrySummary } from '../../../common/telemetrySummary';
import type { SqliteDatabase } from './database';
import { AuditRepository } from './repositories/audit';
import { GroupsRepository } from './repositories/groups';
import { PreregistrationsRepository } from './repositories/preregistrations';
import type { ExportGroups, ExportPreregistrations } from '../contract/exportSnapshot';
import { toIdentityRow, type IdentityRaw } from '../rows/identities';
import { toExportAnnotation, toExportArtifact, toExportEvent, toExportGroupJudgement, toExportJudgement, toExportMessage, toExportSession, toExportTelemetry, toExportUpload, type ExportAnnotationRaw, type ExportArtifactRaw, type ExportEventRaw, type ExportGroupJudgementRaw, type ExportJudgementRaw, type ExportMessageRaw, type ExportSessionRaw, type ExportTelemetryRaw, type ExportUploadRaw } from '../rows/exportSnapshot';
import { toTombstoneSet } from '../rows/withdrawals';
import { settle } from './sync';
import type { AuditCounts, AuditEntry, ExportAnnotation, ExportSnapshot, ExportArtifact, ExportEvent, ExportGroupJudgement, ExportIdentity, ExportJudgement, ExportMessage, ExportSessionRow, ExportUpload } from '../contract/store';

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
  private readonly hasGroupJudgements: boolean;
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
    // group_judgements and group_judge_quality come together (migration 031).
    this.hasGroupJudgements = this.hasTable('group_judgements');
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
      countMemberDocUpdates: (id) => settle(() => (has ? repo.countMemberDocUpdates(id) : 0)),
    };
  }

  /** The pre-registration tables in this snapshot, or none in a database from before migration 026. */
  preregistrations(): ExportPreregistrations {
    const has = this.hasTable('preregistrations');
    const repo = new PreregistrationsRepository(this.db);
    return {
      versions: (id) => settle(() => (has ? repo.versions(id) : [])),
      deviations: (id) => settle(() => (has ? repo.deviations(id) : [])),
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
    return this.stmt(EXPORT_SQL.study.sqlite).get(studyId) as { id: string; title: string; status: string } | undefined;
  }

  countSessions(studyId: string, includePilot: boolean): number {
    return (this.stmt(EXPORT_SQL.countSessions.sqlite).get(studyId, includePilot ? 1 : 0) as { n: number }).n;
  }

  /** Ids of Likert items answered in the study, sorted (used when no survey definition is given). */
  likertItemIds(studyId: string): string[] {
    const rows = this.stmt(EXPORT_SQL.likertItemIds.sqlite).all(studyId) as { item_id: string }[];
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
    return (this.stmt(EXPORT_SQL.countPilotSessions.sqlite).get(studyId) as { n: number }).n;
  }

  /** Sessions of the study in creation order, with their per-session aggregates computed by SQLite. */
  *sessions(studyId: string, includePilot: boolean): Generator<ExportSessionRow> {
    const stmt = this.stmt((this.hasJudgeQuality ? EXPORT_SQL.sessions : EXPORT_SQL.sessionsWithoutJudgeQuality).sqlite);
    for (const r of stmt.iterate(studyId, includePilot ? 1 : 0) as IterableIterator<ExportSessionRaw>) yield toExportSession(r);
  }

  identity(sessionId: string): ExportIdentity | undefined {
    const r = this.stmt(EXPORT_SQL.identity.sqlite).get(sessionId) as IdentityRaw | undefined;
    return r && toIdentityRow(r);
  }

  /** Every identity of the study (for the redaction matcher). */
  *identities(studyId: string): Generator<ExportIdentity & { sessionId: string }> {
    const stmt = this.stmt(EXPORT_SQL.identities.sqlite);
    for (const r of stmt.iterate(studyId) as IterableIterator<IdentityRaw>) yield toIdentityRow(r);
  }

  /** Messages in trajectory order; seq is the 1-based position within the session. */
  *messages(sessionId: string): Generator<ExportMessage> {
    const stmt = this.stmt(EXPORT_SQL.messages.sqlite);
    let seq = 0;
    for (const r of stmt.iterate(sessionId) as IterableIterator<ExportMessageRaw & RawReviewExport>) yield toExportMessage(r, ++seq);
  }

  *events(sessionId: string): Generator<ExportEvent> {
    const stmt = this.stmt(EXPORT_SQL.events.sqlite);
    for (const r of stmt.iterate(sessionId) as IterableIterator<ExportEventRaw>) yield toExportEvent(r);
  }

  artifacts(sessionId: string): ExportArtifact[] {
    const rows = this.stmt(EXPORT_SQL.artifacts.sqlite).all(sessionId) as ExportArtifactRaw[];
    return rows.map(toExportArtifact);
  }

  uploads(sessionId: string): ExportUpload[] {
    const rows = this.stmt(EXPORT_SQL.uploads.sqlite).all(sessionId) as ExportUploadRaw[];
    return rows.map(toExportUpload);
  }

  *judgements(sessionId: string): Generator<ExportJudgement> {
    if (!this.hasJudgements) return;
    const stmt = this.stmt((this.hasJudgementImages ? EXPORT_SQL.judgements : EXPORT_SQL.judgementsWithoutImages).sqlite);
    for (const r of stmt.iterate(sessionId) as IterableIterator<ExportJudgementRaw>) yield toExportJudgement(r, sessionId);
  }

  *groupJudgements(groupId: string): Generator<ExportGroupJudgement> {
    if (!this.hasGroupJudgements) return;
    const stmt = this.stmt(EXPORT_SQL.groupJudgements.sqlite);
    for (const r of stmt.iterate(groupId) as IterableIterator<ExportGroupJudgementRaw>) yield toExportGroupJudgement(r, groupId);
  }

  groupQuality(groupId: string): number | null {
    if (!this.hasGroupJudgements) return null;
    return (this.stmt(EXPORT_SQL.groupQuality.sqlite).get(groupId) as { quality: number | null } | undefined)?.quality ?? null;
  }

  *annotations(sessionId: string): Generator<ExportAnnotation> {
    if (!this.hasAnnotations) return;
    const stmt = this.stmt(EXPORT_SQL.annotations.sqlite);
    for (const r of stmt.iterate(sessionId) as IterableIterator<ExportAnnotationRaw>) yield toExportAnnotation(r);
  }

  /** Integrity telemetry summary (table from migration 009; absent in older files). */
  telemetry(sessionId: string): { summary: TelemetrySummary; batches: number } | undefined {
    if (!this.hasTelemetry) return undefined;
    const r = this.stmt(EXPORT_SQL.telemetry.sqlite).get(sessionId) as ExportTelemetryRaw | undefined;
    return r && toExportTelemetry(r);
  }

  /** Sessions a simulator played (column from migration 030; absent in older files). */
  simulatedSessions(studyId: string): Set<string> {
    if (!this.hasColumn('sessions', 'simulated')) return new Set();
    return new Set((this.stmt(EXPORT_SQL.simulatedSessions.sqlite).all(studyId) as { id: string }[]).map((r) => r.id));
  }

  /** Tombstones of withdrawn participants (table from migration 020; absent in older files). */
  tombstones(studyId: string): Set<string> {
    if (!this.hasTable('withdrawals')) return new Set();
    const rows = this.stmt(EXPORT_SQL.tombstones.sqlite).all(studyId) as { tombstone: string }[];
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
    groupJudgements: (id) => asAsync(reader.groupJudgements(id)),
    groupQuality: (id) => settle(() => reader.groupQuality(id)),
    telemetry: (id) => settle(() => reader.telemetry(id)),
    tombstones: (id) => settle(() => reader.tombstones(id)),
    simulatedSessions: (id) => settle(() => reader.simulatedSessions(id)),
    auditCounts: (id) => settle(() => reader.auditCounts(id)),
    auditList: (options) => settle(() => reader.auditList(options)),
    groups: reader.groups(),
    preregistrations: reader.preregistrations(),
    close: () => settle(() => reader.close()),
  };
}
