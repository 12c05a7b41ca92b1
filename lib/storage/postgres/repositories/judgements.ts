import type { JudgementRecord, JudgementsRepo, SessionQualityRecord } from '../../contract/store';
import { judgementValues, sessionQualityValues, toJudgement, toSessionQuality, type JudgementRaw, type SessionQualityRaw } from '../../rows/judgements';
import { JUDGEMENT_SQL } from '../../sql/judging';
import type { Runner } from '../connection';

/** The `judgements` and `judge_quality` tables (migrations 010 and 012). */
export class PgJudgements implements JudgementsRepo {
  constructor(private readonly db: Runner) {}

  async upsert(j: JudgementRecord): Promise<void> {
    await this.db.run(JUDGEMENT_SQL.upsert.postgres, judgementValues(j));
  }

  async listForSession(sessionId: string): Promise<JudgementRecord[]> {
    return (await this.db.rows<JudgementRaw>(JUDGEMENT_SQL.listForSession.postgres, [sessionId])).map(toJudgement);
  }

  async listForStudy(studyId: string): Promise<JudgementRecord[]> {
    return (await this.db.rows<JudgementRaw>(JUDGEMENT_SQL.listForStudy.postgres, [studyId])).map(toJudgement);
  }

  async setQuality(q: SessionQualityRecord): Promise<void> {
    await this.db.run(JUDGEMENT_SQL.setQuality.postgres, sessionQualityValues(q));
  }

  async getQuality(sessionId: string): Promise<SessionQualityRecord | undefined> {
    const r = await this.db.one<SessionQualityRaw>(JUDGEMENT_SQL.getQuality.postgres, [sessionId]);
    return r && toSessionQuality(r);
  }
}
