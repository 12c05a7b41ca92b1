/** The `judgements` and `judge_quality` tables (migrations 010 and 012). */
import type { JudgementRecord, JudgementsRepo, SessionQualityRecord } from '../../contract/store';
import { judgementUpsertSql, judgementValues, sessionQualityValues, toJudgement, toSessionQuality, type JudgementRaw, type SessionQualityRaw } from '../../rows/judgements';
import type { Runner } from '../connection';

const UPSERT_SQL = judgementUpsertSql((i) => `$${i}`);

export class PgJudgements implements JudgementsRepo {
  constructor(private readonly db: Runner) {}

  async upsert(j: JudgementRecord): Promise<void> {
    await this.db.run(UPSERT_SQL, judgementValues(j));
  }

  async listForSession(sessionId: string): Promise<JudgementRecord[]> {
    return (
      await this.db.rows<JudgementRaw>(
        'SELECT * FROM judgements WHERE session_id = $1 ORDER BY artifact_version, rubric_id, requested_model, sample',
        [sessionId],
      )
    ).map(toJudgement);
  }

  async listForStudy(studyId: string): Promise<JudgementRecord[]> {
    return (
      await this.db.rows<JudgementRaw>(
        `SELECT j.* FROM judgements j JOIN sessions s ON s.id = j.session_id
         WHERE s.study_id = $1 ORDER BY s.created_at, j.session_id, j.artifact_version, j.rubric_id, j.requested_model, j.sample`,
        [studyId],
      )
    ).map(toJudgement);
  }

  async setQuality(q: SessionQualityRecord): Promise<void> {
    await this.db.run(
      `INSERT INTO judge_quality (session_id, artifact_version, rubric_id, rubric_hash, requested_model, quality, samples, parsed, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (session_id) DO UPDATE SET artifact_version = excluded.artifact_version, rubric_id = excluded.rubric_id,
         rubric_hash = excluded.rubric_hash, requested_model = excluded.requested_model, quality = excluded.quality,
         samples = excluded.samples, parsed = excluded.parsed, updated_at = excluded.updated_at`,
      sessionQualityValues(q),
    );
  }

  async getQuality(sessionId: string): Promise<SessionQualityRecord | undefined> {
    const r = await this.db.one<SessionQualityRaw>('SELECT * FROM judge_quality WHERE session_id = $1', [sessionId]);
    return r && toSessionQuality(r);
  }
}
