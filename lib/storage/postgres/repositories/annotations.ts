/** The `annotations` table (migration 011): one row per annotated utterance of a session. */
import type { AnnotationRecord, AnnotationsRepo } from '../../contract/store';
import { annotationValues, toAnnotation, type AnnotationRaw } from '../../rows/annotations';
import type { Runner } from '../connection';

const UPSERT = `INSERT INTO annotations (session_id, turn, message_id, speaker, friction, grounding, guide_hash,
    requested_model, reported_model, provider, provider_url, method, failure_reason, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
  ON CONFLICT (session_id, turn) DO UPDATE SET message_id = excluded.message_id, speaker = excluded.speaker,
    friction = excluded.friction, grounding = excluded.grounding, guide_hash = excluded.guide_hash,
    requested_model = excluded.requested_model, reported_model = excluded.reported_model, provider = excluded.provider,
    provider_url = excluded.provider_url, method = excluded.method, failure_reason = excluded.failure_reason,
    created_at = excluded.created_at`;

export class PgAnnotations implements AnnotationsRepo {
  constructor(private readonly db: Runner) {}

  async upsert(a: AnnotationRecord): Promise<void> {
    await this.db.run(UPSERT, annotationValues(a));
  }

  upsertMany(records: readonly AnnotationRecord[]): Promise<void> {
    return this.db.atomic(async (tx) => {
      const repo = new PgAnnotations(tx);
      for (const r of records) await repo.upsert(r);
    });
  }

  async listForSession(sessionId: string): Promise<AnnotationRecord[]> {
    return (await this.db.rows<AnnotationRaw>('SELECT * FROM annotations WHERE session_id = $1 ORDER BY turn', [sessionId])).map(toAnnotation);
  }

  async listForStudy(studyId: string): Promise<AnnotationRecord[]> {
    return (
      await this.db.rows<AnnotationRaw>(
        'SELECT a.* FROM annotations a JOIN sessions s ON s.id = a.session_id WHERE s.study_id = $1 ORDER BY s.created_at, a.session_id, a.turn',
        [studyId],
      )
    ).map(toAnnotation);
  }
}
