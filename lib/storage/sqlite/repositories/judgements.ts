/**
 * Storage for the judge.
 *
 * - JudgementsRepository: the `judgements` table of the study database (migration 010; the
 *   `images` column, migration 012).
 */
import type { SqliteDatabase } from '../database';
import type { JudgementRecord, JudgementsRepo, SessionQualityRecord } from '../../contract/store';
import { judgementUpsertSql, judgementValues, sessionQualityValues, toJudgement, toSessionQuality, type JudgementRaw, type SessionQualityRaw } from '../../rows/judgements';
import type { Sync } from '../sync';
import { imagesColumn, parseImagesColumn } from '../../rows/judgementImages';

// Engine-neutral (both stores read and write the column the same way); re-exported for existing imports.
export { imagesColumn, parseImagesColumn };

const UPSERT_SQL = judgementUpsertSql(() => '?');

/** The `judgements` and `judge_quality` tables (migrations 010 and 012). */
export class JudgementsRepository implements Sync<JudgementsRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  /** Inserts a sample, replacing an earlier one for the same session/version/rubric/model/sample. */
  upsert(j: JudgementRecord): void {
    this.db.prepare(UPSERT_SQL).run(...judgementValues(j));
  }

  listForSession(sessionId: string): JudgementRecord[] {
    return (
      this.db
        .prepare('SELECT * FROM judgements WHERE session_id = ? ORDER BY artifact_version, rubric_id, requested_model, sample')
        .all(sessionId) as JudgementRaw[]
    ).map(toJudgement);
  }

  /** Every sample of a study's sessions, ordered by session then sample (for exports). */
  listForStudy(studyId: string): JudgementRecord[] {
    return (
      this.db
        .prepare(
          `SELECT j.* FROM judgements j JOIN sessions s ON s.id = j.session_id
           WHERE s.study_id = ? ORDER BY s.created_at, j.session_id, j.artifact_version, j.rubric_id, j.requested_model, j.sample`,
        )
        .all(studyId) as JudgementRaw[]
    ).map(toJudgement);
  }

  setQuality(q: SessionQualityRecord): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO judge_quality (session_id, artifact_version, rubric_id, rubric_hash, requested_model, quality,
           samples, parsed, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(...sessionQualityValues(q));
  }

  getQuality(sessionId: string): SessionQualityRecord | undefined {
    const r = this.db.prepare('SELECT * FROM judge_quality WHERE session_id = ?').get(sessionId) as SessionQualityRaw | undefined;
    return r && toSessionQuality(r);
  }
}
