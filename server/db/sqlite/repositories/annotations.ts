/** The `annotations` table (migration 011): one row per annotated utterance of a session. */
import type { SqliteDatabase } from '../../database';
import type { AnnotationRecord, AnnotationsRepo } from '../../storeInterface';
import type { Sync } from '../sync';

interface Raw {
  session_id: string;
  turn: number;
  message_id: string | null;
  speaker: 'user' | 'agent';
  friction: string | null;
  grounding: string;
  guide_hash: string;
  requested_model: string;
  reported_model: string | null;
  provider: string;
  provider_url: string | null;
  method: AnnotationRecord['method'];
  failure_reason: string | null;
  created_at: number;
}

const toRecord = (r: Raw): AnnotationRecord => ({
  sessionId: r.session_id,
  turn: r.turn,
  messageId: r.message_id,
  speaker: r.speaker,
  friction: r.friction,
  grounding: JSON.parse(r.grounding) as string[],
  guideHash: r.guide_hash,
  requestedModel: r.requested_model,
  reportedModel: r.reported_model,
  provider: r.provider,
  providerUrl: r.provider_url,
  method: r.method,
  failureReason: r.failure_reason,
  createdAt: r.created_at,
});

export class AnnotationsRepository implements Sync<AnnotationsRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  /** Inserts or replaces the annotation of (session, turn). */
  upsert(a: AnnotationRecord): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO annotations (session_id, turn, message_id, speaker, friction, grounding, guide_hash,
           requested_model, reported_model, provider, provider_url, method, failure_reason, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        a.sessionId, a.turn, a.messageId, a.speaker, a.friction, JSON.stringify(a.grounding), a.guideHash,
        a.requestedModel, a.reportedModel, a.provider, a.providerUrl, a.method, a.failureReason, a.createdAt,
      );
  }

  upsertMany(records: readonly AnnotationRecord[]): void {
    this.db.transaction(() => records.forEach((r) => this.upsert(r)))();
  }

  listForSession(sessionId: string): AnnotationRecord[] {
    return (this.db.prepare('SELECT * FROM annotations WHERE session_id = ? ORDER BY turn').all(sessionId) as Raw[]).map(toRecord);
  }

  /** Every annotation of a study's sessions, by session then turn (for exports). */
  listForStudy(studyId: string): AnnotationRecord[] {
    return (
      this.db
        .prepare('SELECT a.* FROM annotations a JOIN sessions s ON s.id = a.session_id WHERE s.study_id = ? ORDER BY s.created_at, a.session_id, a.turn')
        .all(studyId) as Raw[]
    ).map(toRecord);
  }
}
