import { zScores } from '../../lib/stats';
import type { AdminQueriesRepo, Store } from '../../lib/storage';
import type { SessionDetail, TranscriptMessage } from '../../common/admin';
import type { ReviewRow } from '../../lib/storage';
import type { Survey, SurveyItem } from '../../common/survey';
import { deriveIntegrity, finalTextChars, raisedFlags, type IntegrityMeasures } from '../../common/integrityFlags';
import type { IntegrityView } from '../../common/integrityView';

/** λ of the cost C = user_tokens + λ·agent_tokens (design.md default). */
export const COST_LAMBDA = 0.5;

/**
 * Pz = z(Q) − z(C) of one session among the judged non-pilot sessions of its task (sample SD; SD 0 → z 0).
 * Null when the session is not judged. The analysis CLI is the reference; this is the dashboard's preview.
 */
export async function sessionPz(queries: AdminQueriesRepo, studyId: string, taskId: string, sessionId: string): Promise<number | null> {
  const rows = await queries.judgedInTask(studyId, taskId);
  const i = rows.findIndex((r) => r.sessionId === sessionId);
  if (i < 0) return null;
  const zq = zScores(rows.map((r) => r.quality));
  const zc = zScores(rows.map((r) => r.userTokens + COST_LAMBDA * r.agentTokens));
  return zq[i]! - zc[i]!;
}

function provenanceOf(r: ReviewRow | undefined): Pick<TranscriptMessage, 'provenance'> {
  if (!r) return {};
  return { provenance: { mode: r.mode, state: r.state, origin: r.origin, modelDraft: r.draftText, editDistance: r.editDistance, waitMs: r.waitMs } };
}

/** A Likert or attention-check value as a person reads it: "4 of 5: Agree" (end labels only name the ends). */
export function scaleLabel(item: SurveyItem, value: number): string | undefined {
  if (item.kind === 'text') return undefined;
  const { points, anchors } = item;
  const anchor = anchors.length === points ? anchors[value - 1] : value === 1 ? anchors[0] : value === points ? anchors[anchors.length - 1] : undefined;
  return `${value} of ${points}${anchor ? `: ${anchor}` : ''}`;
}

/**
 * Everything the dashboard shows about one session: transcript and trajectory for replay, artifacts, survey, judge.
 * `surveyOf` (the loaded study files' survey of a study) adds each answer's question and scale label.
 */
export async function sessionDetail(store: Store, sessionId: string, surveyOf?: (studyId: string) => Survey | undefined): Promise<SessionDetail | undefined> {
  const s = await store.sessions.get(sessionId);
  if (!s) return undefined;
  const queries = store.adminQueries;
  const [messages, events, versions, uploads, answers, quality, samples, pz, telemetry, reviews] = await Promise.all([
    store.messages.listForSession(sessionId),
    store.events.listForSession(sessionId),
    store.artifacts.listVersions(sessionId),
    store.uploads.listForSession(sessionId),
    store.surveyAnswers.listForSession(sessionId),
    queries.quality(sessionId),
    queries.judgeSamples(sessionId),
    sessionPz(queries, s.studyId, s.taskId, sessionId),
    store.telemetry.get(sessionId),
    store.reviews.listForSession(sessionId),
  ]);
  const reviewOf = new Map(reviews.map((r) => [r.replyId, r]));
  const finalText = finalTextChars(
    messages.reduce((n, m) => (m.role === 'user' ? n + m.text.length : n), 0),
    versions.at(-1)?.fields ?? null,
    new Set(uploads.map((u) => u.id)),
  );
  const integrity = deriveIntegrity(telemetry?.summary ?? null, finalText);
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
    transcript: messages.map((m) => ({
      id: m.id,
      role: m.role,
      text: m.text,
      status: m.status,
      createdAt: m.createdAt,
      tokens: m.tokens,
      model: m.model,
      ttftMs: m.ttftMs,
      durationMs: m.durationMs,
      ...provenanceOf(reviewOf.get(m.id)),
    })),
    timeline: events.map((e) => ({ seq: e.seq, type: e.type, serverTs: e.serverTs, clientTs: e.clientTs, payload: e.payload })),
    artifactVersions: versions.map((a) => ({ version: a.version, fields: a.fields, submittedAt: a.submittedAt })),
    uploads: uploads.map((u) => ({
      id: u.id,
      fieldId: u.fieldId,
      contentType: u.contentType,
      bytes: u.bytes,
      url: `/api/admin/sessions/${encodeURIComponent(sessionId)}/uploads/${encodeURIComponent(u.id)}`,
    })),
    survey: answers.map((a) => {
      const item = surveyOf?.(s.studyId)?.items.find((i) => i.id === a.itemId);
      const value = a.valueNum ?? a.valueText;
      const label = item && typeof value === 'number' ? scaleLabel(item, value) : undefined;
      return { itemId: a.itemId, kind: a.itemKind, value, ...(item ? { prompt: item.prompt } : {}), ...(label ? { valueLabel: label } : {}) };
    }),
    judge: {
      quality,
      samples: samples.map((j) => ({ artifactVersion: j.artifactVersion, rubricId: j.rubricId, model: j.model, sample: j.sample, score: j.score, parseOk: j.parseOk })),
    },
    pz,
    integrity: integrity && telemetry ? integrityView(integrity, telemetry.batches) : null,
  };
}

function integrityView(m: IntegrityMeasures, batches: number): IntegrityView {
  const { flags: _flags, ...measures } = m;
  return { batches, ...measures, flags: raisedFlags(m) };
}
