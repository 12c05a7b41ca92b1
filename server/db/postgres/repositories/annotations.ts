/** The `annotations` table (migration 011): one row per annotated utterance of a session. */
import type { AnnotationRecord, AnnotationsRepo } from '../../storeInterface';
import type { Runner } from '../connection';

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
    await this.db.run(UPSERT, [
      a.sessionId, a.turn, a.messageId, a.speaker, a.friction, JSON.stringify(a.grounding), a.guideHash,
      a.requestedModel, a.reportedModel, a.provider, a.providerUrl, a.method, a.failureReason, a.createdAt,
    ]);
  }

  upsertMany(records: readonly AnnotationRecord[]): Promise<void> {
    return this.db.atomic(async (tx) => {
      const repo = new PgAnnotations(tx);
      for (const r of records) await repo.upsert(r);
    });
  }

  async listForSession(sessionId: string): Promise<AnnotationRecord[]> {
    return (await this.db.rows<Raw>('SELECT * FROM annotations WHERE session_id = $1 ORDER BY turn', [sessionId])).map(toRecord);
  }

  async listForStudy(studyId: string): Promise<AnnotationRecord[]> {
    return (
      await this.db.rows<Raw>(
        'SELECT a.* FROM annotations a JOIN sessions s ON s.id = a.session_id WHERE s.study_id = $1 ORDER BY s.created_at, a.session_id, a.turn',
        [studyId],
      )
    ).map(toRecord);
  }
}
