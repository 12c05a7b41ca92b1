/** The `annotations` table (migration 011): one row per annotated utterance of a session. */
import type { SqliteDatabase } from '../database';
import type { AnnotationRecord, AnnotationsRepo } from '../../contract/store';
import { annotationValues, toAnnotation, type AnnotationRaw } from '../../rows/annotations';
import type { Sync } from '../sync';

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
      .run(...annotationValues(a));
  }

  upsertMany(records: readonly AnnotationRecord[]): void {
    this.db.transaction(() => records.forEach((r) => this.upsert(r)))();
  }

  listForSession(sessionId: string): AnnotationRecord[] {
    return (this.db.prepare('SELECT * FROM annotations WHERE session_id = ? ORDER BY turn').all(sessionId) as AnnotationRaw[]).map(toAnnotation);
  }

  /** Every annotation of a study's sessions, by session then turn (for exports). */
  listForStudy(studyId: string): AnnotationRecord[] {
    return (
      this.db
        .prepare('SELECT a.* FROM annotations a JOIN sessions s ON s.id = a.session_id WHERE s.study_id = ? ORDER BY s.created_at, a.session_id, a.turn')
        .all(studyId) as AnnotationRaw[]
    ).map(toAnnotation);
  }
}
