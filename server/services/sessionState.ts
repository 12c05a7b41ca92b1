import type { SessionState, ChatMessageView, UploadView } from '../../common/session';
import { publicSurveyItem, seatOfCondition, surveyForSeat } from '../../common/survey';
import { completionRedirectUrl, lobbyReleaseCode, type CompletionOutcome } from '../../common/study';
import { MAX_UPLOAD_BYTES, UPLOAD_TYPES } from '../../common/http';
import type { MessageRow, SessionRow, SessionStateRows, UploadRow } from '../../lib/storage';
import { expireIfDue } from './lifecycle';
import { unansweredUserMessage } from './conversation';
import { rememberSession } from './knownSessions';
import { deadlineOf, ServiceError, sessionContextOf, type ServiceContext } from './serviceContext';
import type { InFlightView } from './inFlightReply';


export function messageView(m: MessageRow): ChatMessageView {
  return {
    id: m.id,
    role: m.role,
    text: m.text,
    clientId: m.clientId,
    replyTo: m.replyTo,
    status: m.status,
    error: m.error ? participantErrorMessage(m.error.kind) : null,
    createdAt: m.createdAt,
  };
}

/** Wording shown to participants for a failed reply (never raw provider text). */
export function participantErrorMessage(kind: string): string {
  switch (kind) {
    case 'rate_limit':
      return 'The assistant is busy right now. Please press Retry in a moment.';
    case 'timeout':
      return 'The assistant took too long to answer. Please press Retry.';
    case 'stream':
      return 'The connection to the assistant broke off mid-reply. Please press Retry.';
    default:
      return 'The assistant could not answer. Please press Retry.';
  }
}

export function uploadView(u: UploadRow): UploadView {
  return { id: u.id, fieldId: u.fieldId, fileName: u.fileName, contentType: u.contentType, bytes: u.bytes, url: `/api/session/uploads/${u.id}` };
}

function outcomeOf(status: string): CompletionOutcome | null {
  return status === 'completed' ? 'completed' : status === 'declined' ? 'declined' : status === 'timed_out' ? 'timed_out' : null;
}

async function readRows(ctx: ServiceContext, sessionId: string): Promise<SessionStateRows> {
  const rows = await ctx.store.readSessionState(sessionId);
  if (!rows) throw new ServiceError('not_found', 'session not found');
  return rows;
}

/**
 * The full snapshot a (re)connecting client renders from, after applying the time limit (a session past its
 * deadline is shown timed out). One store read (PostgreSQL: one statement) for the session and all its rows;
 * a second only when the session just timed out, or for a timed-out session of a group condition (its lobby
 * entry: a person the lobby released ended with the lobby's code).
 */
export async function buildSessionState(ctx: ServiceContext, sessionId: string, inFlight: InFlightView | null): Promise<SessionState> {
  return sessionStateOf(ctx, await readRows(ctx, sessionId), inFlight);
}

/**
 * The rows of a session that has nothing but its own row: before its workspace opens, and at the moment the step that
 * opens it is taken: a draft, a message, an upload, a version and survey answers are each refused before the workspace.
 */
export const nothingYet = (session: SessionRow): SessionStateRows => ({ session, draft: undefined, messages: [], uploads: [], versions: [], surveySubmitted: false });

/** The snapshot from rows in hand (buildSessionState reads them; a step that just changed the row may know them). */
export async function sessionStateOf(ctx: ServiceContext, known: SessionStateRows, inFlight: InFlightView | null): Promise<SessionState> {
  const sessionId = known.session.id;
  let rows = known;
  if (await expireIfDue(ctx, sessionContextOf(ctx, rows.session))) rows = await readRows(ctx, sessionId);
  const { draft, messages, uploads, versions, surveySubmitted } = rows;
  const s = sessionContextOf(ctx, rows.session);
  const { session, study, task, condition, survey } = s;
  rememberSession(ctx, session);
  const resolved = ctx.providers(condition);
  const outcome = outcomeOf(session.status);
  // Ended by the lobby's release (not by the time limit before it): the entry was settled when the session ended.
  const entry = outcome === 'timed_out' && condition.group !== undefined ? await ctx.store.groups.getLobbyEntry(sessionId) : undefined;
  const released = entry?.outcome === 'released' && entry.outcomeAt === session.endedAt;
  const code = released ? lobbyReleaseCode(study.completion) : outcome ? study.completion.codes[outcome] : null;
  return {
    sessionId,
    studyId: study.id,
    studyTitle: study.title,
    step: session.step,
    status: session.status,
    isPilot: session.isPilot,
    consent: { version: study.consent.version, text: study.consent.text },
    task: {
      id: task.id,
      title: task.title,
      instructions: task.instructions,
      materials: task.materials.map((m) => ({
        name: m.name,
        description: m.description ?? null,
        url: `/api/session/materials/${encodeURIComponent(m.name)}`,
      })),
      fields: task.fields,
    },
    assistant: {
      label: resolved.offline ? `${condition.assistant_label} (offline demo)` : condition.assistant_label,
      offline: resolved.offline,
      ...(seatOfCondition(condition) ? { seat: seatOfCondition(condition)! } : {}),
    },
    limits: { maxMessageChars: study.chat.max_message_chars, maxUploadBytes: MAX_UPLOAD_BYTES, uploadTypes: [...UPLOAD_TYPES] },
    deadline: deadlineOf(s),
    serverNow: ctx.now(),
    messages: messages.map(messageView),
    replyInFlight: inFlight,
    canRetry: inFlight === null && session.status === 'active' && session.step === 'workspace' && unansweredUserMessage(messages) !== null,
    draft: draft ? { fields: draft.fields, savedAt: draft.savedAt, version: draft.version } : null,
    uploads: uploads.map(uploadView),
    artifactVersions: versions.map((v) => ({ version: v.version, fields: v.fields, submittedAt: v.submittedAt })),
    survey: { id: survey.id, title: survey.title, ...(survey.intro !== undefined ? { intro: survey.intro } : {}), items: surveyForSeat(survey, seatOfCondition(condition)).items.map(publicSurveyItem) },
    surveySubmitted,
    completion: outcome && code ? { outcome, code, redirectUrl: completionRedirectUrl(study.completion, code), ...(released ? { lobbyReleased: true } : {}) } : null,
  };
}
