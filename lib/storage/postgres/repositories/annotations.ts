import type { AnnotationRecord, AnnotationsRepo } from '../../contract/store';
import { annotationValues, toAnnotation, type AnnotationRaw } from '../../rows/annotations';
import { ANNOTATION_SQL } from '../../sql/judging';
import type { Runner } from '../connection';

/** The `annotations` table (migration 011): one row per annotated utterance of a session. */
export class PgAnnotations implements AnnotationsRepo {
  constructor(private readonly db: Runner) {}

  async upsert(a: AnnotationRecord): Promise<void> {
    await this.db.run(ANNOTATION_SQL.upsert.postgres, annotationValues(a));
  }

  upsertMany(records: readonly AnnotationRecord[]): Promise<void> {
    return this.db.atomic(async (tx) => {
      const repo = new PgAnnotations(tx);
      for (const r of records) await repo.upsert(r);
    });
  }

  async listForSession(sessionId: string): Promise<AnnotationRecord[]> {
    return (await this.db.rows<AnnotationRaw>(ANNOTATION_SQL.listForSession.postgres, [sessionId])).map(toAnnotation);
  }

  async listForStudy(studyId: string): Promise<AnnotationRecord[]> {
    return (await this.db.rows<AnnotationRaw>(ANNOTATION_SQL.listForStudy.postgres, [studyId])).map(toAnnotation);
  }
}
