import { zScores } from '../../analysis/stats';
import { AdminQueriesRepository } from '../db/repositories/adminQueries';
import type { Store } from '../db/store';
import type { SessionDetail } from '../../common/admin';

/** λ of the cost C = user_tokens + λ·agent_tokens (design.md default). */
export const COST_LAMBDA = 0.5;

/**
 * Pz = z(Q) − z(C) of one session among the judged non-pilot sessions of its task (sample SD; SD 0 → z 0).
 * Null when the session is not judged. The analysis CLI is the reference; this is the dashboard's preview.
 */
export function sessionPz(queries: AdminQueriesRepository, studyId: string, taskId: string, sessionId: string): number | null {
  const rows = queries.judgedInTask(studyId, taskId);
  const i = rows.findIndex((r) => r.sessionId === sessionId);
  if (i < 0) return null;
  const zq = zScores(rows.map((r) => r.quality));
  const zc = zScores(rows.map((r) => r.userTokens + COST_LAMBDA * r.agentTokens));
  return zq[i]! - zc[i]!;
}

/** Everything the dashboard shows about one session: transcript and trajectory for replay, artifacts, survey, judge. */
export function sessionDetail(store: Store, sessionId: string): SessionDetail | undefined {
  const s = store.sessions.get(sessionId);
  if (!s) return undefined;
  const queries = new AdminQueriesRepository(store.db);
  return {
    session: {
      id: s.id,
      studyId: s.studyId,
      taskId: s.taskId,
      conditionId: s.conditionId,
      step: s.step,
      status: s.status,
      isPilot: s.isPilot,
      createdAt: s.createdAt,
      consentedAt: s.consentedAt,
      submittedAt: s.submittedAt,
      endedAt: s.endedAt,
    },
    transcript: store.messages.listForSession(sessionId).map((m) => ({
      id: m.id,
      role: m.role,
      text: m.text,
      status: m.status,
      createdAt: m.createdAt,
      tokens: m.tokens,
      model: m.model,
      ttftMs: m.ttftMs,
      durationMs: m.durationMs,
    })),
    timeline: store.events.listForSession(sessionId).map((e) => ({ seq: e.seq, type: e.type, serverTs: e.serverTs, clientTs: e.clientTs, payload: e.payload })),
    artifactVersions: store.artifacts.listVersions(sessionId).map((a) => ({ version: a.version, fields: a.fields, submittedAt: a.submittedAt })),
    uploads: store.uploads.listForSession(sessionId).map((u) => ({
      id: u.id,
      fieldId: u.fieldId,
      contentType: u.contentType,
      bytes: u.bytes,
      url: `/api/admin/sessions/${encodeURIComponent(sessionId)}/uploads/${encodeURIComponent(u.id)}`,
    })),
    survey: store.surveyAnswers.listForSession(sessionId).map((a) => ({ itemId: a.itemId, kind: a.itemKind, value: a.valueNum ?? a.valueText })),
    judge: {
      quality: queries.quality(sessionId),
      samples: queries.judgeSamples(sessionId).map((j) => ({ artifactVersion: j.artifactVersion, rubricId: j.rubricId, model: j.model, sample: j.sample, score: j.score, parseOk: j.parseOk })),
    },
    pz: sessionPz(queries, s.studyId, s.taskId, sessionId),
  };
}
