/**
 * The `group_judgements` and `group_judge_quality` rows (migration 031): the columns of judgements /
 * judge_quality with group_id for session_id and doc_version for artifact_version, mapped through the
 * session mappers of rows/judgements.ts so both tables read and write every other column alike.
 */
import type { GroupJudgementRecord, GroupQualityRecord } from '../contract/store';
import { judgementValues, sessionQualityValues, toJudgement, toSessionQuality, type JudgementRaw, type SessionQualityRaw } from './judgements';

export type GroupJudgementRaw = Omit<JudgementRaw, 'session_id' | 'artifact_version'> & { group_id: string; doc_version: number };
export type GroupQualityRaw = Omit<SessionQualityRaw, 'session_id' | 'artifact_version'> & { group_id: string; doc_version: number };

export function toGroupJudgement({ group_id, doc_version, ...rest }: GroupJudgementRaw): GroupJudgementRecord {
  const { sessionId: _s, artifactVersion: _v, ...record } = toJudgement({ ...rest, session_id: group_id, artifact_version: doc_version });
  return { groupId: group_id, docVersion: doc_version, ...record };
}

export function toGroupQuality({ group_id, doc_version, ...rest }: GroupQualityRaw): GroupQualityRecord {
  const { sessionId: _s, artifactVersion: _v, ...record } = toSessionQuality({ ...rest, session_id: group_id, artifact_version: doc_version });
  return { groupId: group_id, docVersion: doc_version, ...record };
}

/** The values of a group judgement upsert: judgementValues' order, group and version first. */
export const groupJudgementValues = ({ groupId, docVersion, ...j }: GroupJudgementRecord) =>
  judgementValues({ ...j, sessionId: groupId, artifactVersion: docVersion });

export const groupQualityValues = ({ groupId, docVersion, ...q }: GroupQualityRecord) =>
  sessionQualityValues({ ...q, sessionId: groupId, artifactVersion: docVersion });
