import type { GroupJudgementRecord, GroupJudgementsRepo, GroupQualityRecord } from '../../contract/store';
import { groupJudgementValues, groupQualityValues, toGroupJudgement, toGroupQuality, type GroupJudgementRaw, type GroupQualityRaw } from '../../rows/groupJudgements';
import { GROUP_JUDGEMENT_SQL } from '../../sql/judging';
import { SqliteRepository } from '../statements';
import type { Sync } from '../sync';

/** The `group_judgements` and `group_judge_quality` tables (migration 031). */
export class GroupJudgementsRepository extends SqliteRepository implements Sync<GroupJudgementsRepo> {
  upsert(j: GroupJudgementRecord): void {
    this.q.run(GROUP_JUDGEMENT_SQL.upsert, ...groupJudgementValues(j));
  }

  listForGroup(groupId: string): GroupJudgementRecord[] {
    return this.q.rows<GroupJudgementRaw>(GROUP_JUDGEMENT_SQL.listForGroup, groupId).map(toGroupJudgement);
  }

  listForStudy(studyId: string): GroupJudgementRecord[] {
    return this.q.rows<GroupJudgementRaw>(GROUP_JUDGEMENT_SQL.listForStudy, studyId).map(toGroupJudgement);
  }

  setQuality(q: GroupQualityRecord): void {
    this.q.run(GROUP_JUDGEMENT_SQL.setQuality, ...groupQualityValues(q));
  }

  getQuality(groupId: string): GroupQualityRecord | undefined {
    const r = this.q.one<GroupQualityRaw>(GROUP_JUDGEMENT_SQL.getQuality, groupId);
    return r && toGroupQuality(r);
  }
}
