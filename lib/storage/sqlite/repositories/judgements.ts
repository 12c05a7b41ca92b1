/**
 * Storage for the judge: the `judgements` table of the study database (migration 010; the `images` column,
 * migration 012) and `judge_quality`.
 */
import type { JudgementRecord, JudgementsRepo, SessionQualityRecord } from '../../contract/store';
import { judgementValues, sessionQualityValues, toJudgement, toSessionQuality, type JudgementRaw, type SessionQualityRaw } from '../../rows/judgements';
import { imagesColumn, parseImagesColumn } from '../../rows/judgementImages';
import { JUDGEMENT_SQL } from '../../sql/judging';
import { SqliteRepository } from '../statements';
import type { Sync } from '../sync';

// Engine-neutral (both stores read and write the column the same way); re-exported for existing imports.
export { imagesColumn, parseImagesColumn };

/** The `judgements` and `judge_quality` tables (migrations 010 and 012). */
export class JudgementsRepository extends SqliteRepository implements Sync<JudgementsRepo> {
  /** Inserts a sample, replacing an earlier one for the same session/version/rubric/model/sample. */
  upsert(j: JudgementRecord): void {
    this.q.run(JUDGEMENT_SQL.upsert, ...judgementValues(j));
  }

  listForSession(sessionId: string): JudgementRecord[] {
    return this.q.rows<JudgementRaw>(JUDGEMENT_SQL.listForSession, sessionId).map(toJudgement);
  }

  /** Every sample of a study's sessions, ordered by session then sample (for exports). */
  listForStudy(studyId: string): JudgementRecord[] {
    return this.q.rows<JudgementRaw>(JUDGEMENT_SQL.listForStudy, studyId).map(toJudgement);
  }

  setQuality(q: SessionQualityRecord): void {
    this.q.run(JUDGEMENT_SQL.setQuality, ...sessionQualityValues(q));
  }

  getQuality(sessionId: string): SessionQualityRecord | undefined {
    const r = this.q.one<SessionQualityRaw>(JUDGEMENT_SQL.getQuality, sessionId);
    return r && toSessionQuality(r);
  }
}
