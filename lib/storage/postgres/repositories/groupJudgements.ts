import type { GroupJudgementRecord, GroupJudgementsRepo, GroupQualityRecord } from '../../contract/store';
import { groupJudgementValues, groupQualityValues, toGroupJudgement, toGroupQuality, type GroupJudgementRaw, type GroupQualityRaw } from '../../rows/groupJudgements';
import { GROUP_JUDGEMENT_SQL } from '../../sql/judging';
import type { Runner } from '../connection';

/** The `group_judgements` and `group_judge_quality` tables (migration 031). */
export class PgGroupJudgements implements GroupJudgementsRepo {
  constructor(private readonly db: Runner) {}

  async upsert(j: GroupJudgementRecord): Promise<void> {
    await this.db.run(GROUP_JUDGEMENT_SQL.upsert.postgres, groupJudgementValues(j));
  }

  async listForGroup(groupId: string): Promise<GroupJudgementRecord[]> {
    return (await this.db.rows<GroupJudgementRaw>(GROUP_JUDGEMENT_SQL.listForGroup.postgres, [groupId])).map(toGroupJudgement);
  }

  async listForStudy(studyId: string): Promise<GroupJudgementRecord[]> {
    return (await this.db.rows<GroupJudgementRaw>(GROUP_JUDGEMENT_SQL.listForStudy.postgres, [studyId])).map(toGroupJudgement);
  }

  async setQuality(q: GroupQualityRecord): Promise<void> {
    await this.db.run(GROUP_JUDGEMENT_SQL.setQuality.postgres, groupQualityValues(q));
  }

  async getQuality(groupId: string): Promise<GroupQualityRecord | undefined> {
    const r = await this.db.one<GroupQualityRaw>(GROUP_JUDGEMENT_SQL.getQuality.postgres, [groupId]);
    return r && toGroupQuality(r);
  }
}
