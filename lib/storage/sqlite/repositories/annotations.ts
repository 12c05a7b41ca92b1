import type { AnnotationRecord, AnnotationsRepo } from '../../contract/store';
import { annotationValues, toAnnotation, type AnnotationRaw } from '../../rows/annotations';
import { ANNOTATION_SQL } from '../../sql/judging';
import type { SqliteDatabase } from '../database';
import { SqliteRepository } from '../statements';
import type { Sync } from '../sync';

/** The `annotations` table (migration 011): one row per annotated utterance of a session. */
export class AnnotationsRepository extends SqliteRepository implements Sync<AnnotationsRepo> {
  /** Inserts or replaces the annotation of (session, turn). */
  upsert(a: AnnotationRecord): void {
    this.q.run(ANNOTATION_SQL.upsert, ...annotationValues(a));
  }

  upsertMany(records: readonly AnnotationRecord[]): void {
    this.db.transaction(() => records.forEach((r) => this.upsert(r)))();
  }

  listForSession(sessionId: string): AnnotationRecord[] {
    return this.q.rows<AnnotationRaw>(ANNOTATION_SQL.listForSession, sessionId).map(toAnnotation);
  }

  /** Every annotation of a study's sessions, by session then turn (for exports). */
  listForStudy(studyId: string): AnnotationRecord[] {
    return this.q.rows<AnnotationRaw>(ANNOTATION_SQL.listForStudy, studyId).map(toAnnotation);
  }
}
