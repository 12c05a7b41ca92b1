/**
 * The researcher API, typed once for both ends (server/admin/ and client/admin/): every request body,
 * every response's `data`, and the /admin socket.io namespace's events. Every JSON response and every
 * socket ack is the common Envelope (./envelope).
 *
 * HTTP (all under /api/admin; everything but login needs the researcher cookie, every POST the
 * X-CSRF-Token header):
 *  POST /login                               LoginRequest → LoginResponse          (rate-limited)
 *  GET  /me                                  → LoginResponse
 *  POST /logout                              → {}
 *  GET  /studies                             → StudySummary[]
 *  POST /studies/:studyId/status             StatusChangeRequest → StatusChangeResponse
 *  GET  /studies/:studyId/monitor            → MonitorSnapshot
 *  GET  /studies/:studyId/sessions?limit&offset → SessionListEntry[]
 *  GET  /studies/:studyId/audit              → AuditEntryView[]
 *  GET  /sessions/:sessionId                 → SessionDetail
 *  GET  /sessions/:sessionId/uploads/:id     → the image bytes
 *  POST /studies/:studyId/exports            ExportRequest → ExportTicket
 *  GET  /exports/:ticket/download            → the dataset zip (once, same researcher session)
 *  POST /studies/:studyId/withdrawals        WithdrawRequest → WithdrawalResult
 *  POST /studies/:studyId/runs/:kind         JudgeRunRequest (kind judge) → RunStarted (202; kind is RunKind)
 *  GET  /studies/:studyId/runs               → RunsStatus
 *  GET  /studies/:studyId/analysis/report    → the analysis report (HTML, sandboxed)
 *
 * SOCKET namespace /admin (the login cookie authenticates the handshake; else connect_error "unauthorized"):
 *  client → server  `monitor:subscribe {studyId}` ack MonitorSnapshot (and pushes for that study follow),
 *                   `monitor:unsubscribe {}` ack {}
 *  server → client  `monitor:update` MonitorSnapshot, `export:progress` ExportProgress, `run:progress` RunProgress,
 *                   `monitor:group` MonitorGroupPush (a live change of a group of the subscribed study)
 */
import { IntegrityView } from './integrityView';
import { MonitorGroupPush, MonitorGroups } from './groupMonitor';
import { z } from 'zod';
import type { Envelope } from './envelope';
import { Slug } from './ids';
import { StudyStatus } from './http';
import { MessageStatus, SessionStatus, Step } from './session';

// ---------- HTTP: requests ----------

export const LoginRequest = z.object({ password: z.string().min(1, 'must not be empty').max(1000) }).strict();
export type LoginRequest = z.infer<typeof LoginRequest>;

export const StatusChangeRequest = z
  .object({
    status: StudyStatus,
    /**
     * Going live with a plan file (studies/<id>.prereg.yaml) that was never locked is refused (conflict, field
     * "preregistration") unless this states why the study goes live without a lock (audited).
     */
    preregistration_opt_out: z.string().trim().min(10, 'state the reason in a sentence').max(2000).optional(),
  })
  .strict();
export type StatusChangeRequest = z.infer<typeof StatusChangeRequest>;

export const ExportRequest = z
  .object({ includePilot: z.boolean().default(false), includeIdentities: z.boolean().default(false) })
  .strict();
export type ExportRequest = z.infer<typeof ExportRequest>;

export const WithdrawRequest = z
  .object({ participant: z.string().trim().min(1, 'must be the platform id (e.g. PROLIFIC_PID)').max(200) })
  .strict();
export type WithdrawRequest = z.infer<typeof WithdrawRequest>;

// ---------- HTTP: responses ----------

/** Login and /me: who is logged in and the CSRF token to echo on state-changing requests. */
export const LoginResponse = z.object({ actor: z.string(), csrfToken: z.string() });
export type LoginResponse = z.infer<typeof LoginResponse>;

export const EmptyReply = z.object({});
export type EmptyReply = z.infer<typeof EmptyReply>;

export const StatusChangeResponse = z.object({ studyId: z.string(), status: StudyStatus });
export type StatusChangeResponse = z.infer<typeof StatusChangeResponse>;

/** Sessions of one condition with one outcome (session status), pilot and non-pilot apart. */
export const ConditionOutcomeCount = z.object({ conditionId: z.string(), status: z.string(), isPilot: z.boolean(), n: z.number().int() });
export type ConditionOutcomeCount = z.infer<typeof ConditionOutcomeCount>;

export const StudySummary = z.object({
  id: z.string(),
  title: z.string(),
  status: StudyStatus,
  /** False when the study is in the database but its definition file is gone. */
  configured: z.boolean(),
  tasks: z.array(z.object({ id: z.string(), title: z.string() })),
  conditions: z.array(z.string()),
  counts: z.array(ConditionOutcomeCount),
  totalSessions: z.number().int(),
  pilotSessions: z.number().int(),
  /** Sessions still in progress (status active, pilot included): switching to draft or closed lets them finish. */
  sessionsInProgress: z.number().int(),
  /**
   * Sessions opened from a link with a platform id but no per-visit id (Prolific SESSION_ID, MTurk
   * assignmentId): they can be reopened elsewhere only with their resume code. The dashboard warns.
   */
  sessionsWithoutVisitId: z.number().int(),
});
export type StudySummary = z.infer<typeof StudySummary>;
export const StudySummaryList = z.array(StudySummary);

/** connected: a participant socket is open and acted within the idle window; idle: open but quiet; disconnected: no socket. */
export const ConnectionState = z.enum(['connected', 'idle', 'disconnected']);
export type ConnectionState = z.infer<typeof ConnectionState>;

/** What the monitor and the session list both say about a session. */
const SessionOverview = z.object({
  sessionId: z.string(),
  taskId: z.string(),
  conditionId: z.string(),
  step: z.string(),
  status: z.string(),
  isPilot: z.boolean(),
  createdAt: z.number(),
  lastActivityAt: z.number(),
  messages: z.number().int(),
});

export const MonitorSession = SessionOverview.extend({
  connection: ConnectionState,
  /** ms since consent (or since the session began, before consent); frozen at the end of the session. */
  elapsedMs: z.number(),
});
export type MonitorSession = z.infer<typeof MonitorSession>;

/** Active sessions of a study plus those that ended in the last 15 minutes, newest first. */
export const MonitorSnapshot = z.object({ studyId: z.string(), at: z.number(), sessions: z.array(MonitorSession), groups: MonitorGroups.optional() });
export type MonitorSnapshot = z.infer<typeof MonitorSnapshot>;

/** One row of GET /studies/:studyId/sessions. */
export const SessionListEntry = SessionOverview.extend({
  consentedAt: z.number().nullable(),
  endedAt: z.number().nullable(),
  submittedAt: z.number().nullable(),
});
export type SessionListEntry = z.infer<typeof SessionListEntry>;
export const SessionList = z.array(SessionListEntry);

export const TranscriptMessage = z.object({
  id: z.string(),
  role: z.enum(['user', 'assistant']),
  /** Participant or model text: render as text, never as HTML. */
  text: z.string(),
  status: MessageStatus,
  createdAt: z.number(),
  tokens: z.number(),
  model: z.string().nullable(),
  ttftMs: z.number().nullable(),
  durationMs: z.number().nullable(),
  /**
   * For a reply of a review or wizard condition: where its words came from (origin), the model's draft and how
   * far the sent text is from it, and the review's end (sent, fallback, discarded). Absent for model replies.
   */
  provenance: z
    .object({
      mode: z.enum(['review', 'wizard']),
      state: z.enum(['waiting', 'claimed', 'sent', 'fallback', 'discarded']),
      origin: z.enum(['model', 'model_edited', 'wizard', 'fallback']).nullable(),
      modelDraft: z.string().nullable(),
      editDistance: z.number().nullable(),
      waitMs: z.number().nullable(),
    })
    .optional(),
});
export type TranscriptMessage = z.infer<typeof TranscriptMessage>;

/** One trajectory event (the replay's time line). */
export const TimelineEvent = z.object({
  seq: z.number().int(),
  type: z.string(),
  serverTs: z.number(),
  clientTs: z.number().nullable(),
  payload: z.unknown(),
});
export type TimelineEvent = z.infer<typeof TimelineEvent>;

export const ArtifactVersionView = z.object({ version: z.number().int(), fields: z.record(z.string(), z.string()), submittedAt: z.number() });
export type ArtifactVersionView = z.infer<typeof ArtifactVersionView>;

export const AdminUploadView = z.object({
  id: z.string(),
  fieldId: z.string(),
  contentType: z.string(),
  bytes: z.number(),
  /** GET with the researcher cookie. */
  url: z.string(),
});
export type AdminUploadView = z.infer<typeof AdminUploadView>;

export const SurveyAnswerView = z.object({
  itemId: z.string(),
  kind: z.string(),
  value: z.union([z.number(), z.string()]).nullable(),
  /** The item's question, and for a scale point its label ("4 of 5: Agree"), when the study's survey is known. */
  prompt: z.string().optional(),
  valueLabel: z.string().optional(),
});
export type SurveyAnswerView = z.infer<typeof SurveyAnswerView>;

export const JudgeSampleView = z.object({
  artifactVersion: z.number().int(),
  rubricId: z.string(),
  model: z.string(),
  sample: z.number().int(),
  score: z.number().nullable(),
  parseOk: z.boolean(),
});
export type JudgeSampleView = z.infer<typeof JudgeSampleView>;

export const SessionDetail = z.object({
  session: z.object({
    id: z.string(),
    studyId: z.string(),
    taskId: z.string(),
    conditionId: z.string(),
    step: Step,
    status: SessionStatus,
    isPilot: z.boolean(),
    createdAt: z.number(),
    consentedAt: z.number().nullable(),
    submittedAt: z.number().nullable(),
    endedAt: z.number().nullable(),
  }),
  transcript: z.array(TranscriptMessage),
  timeline: z.array(TimelineEvent),
  artifactVersions: z.array(ArtifactVersionView),
  uploads: z.array(AdminUploadView),
  survey: z.array(SurveyAnswerView),
  /** quality Q = median of the judge samples of the latest version; null until judged. */
  judge: z.object({ quality: z.number().nullable(), samples: z.array(JudgeSampleView) }),
  /** Collaborative productivity Pz = z(Q) − z(C) within task; null until the session is judged. */
  pz: z.number().nullable(),
  /** Integrity telemetry measures and flags (common/integrityFlags.ts); null when the session sent none. */
  integrity: IntegrityView.nullable().optional(),
});
export type SessionDetail = z.infer<typeof SessionDetail>;

export const ExportTicket = z.object({
  ticket: z.string(),
  /** GET once with the same researcher session; streams the dataset zip. */
  downloadUrl: z.string(),
  sessions: z.number().int(),
  redactions: z.number().int(),
});
export type ExportTicket = z.infer<typeof ExportTicket>;

export const WithdrawalResult = z.object({
  deletedSessions: z.number().int(),
  deletedFiles: z.number().int(),
  /** Cached judge/annotator replies built from the withdrawn sessions' text, now deleted. */
  purgedCachedReplies: z.number().int(),
  /** First 12 hex characters of the tombstone: lets a researcher confirm a withdrawal without the platform id. */
  reference: z.string(),
});
export type WithdrawalResult = z.infer<typeof WithdrawalResult>;

export const AuditEntryView = z.object({
  at: z.number(),
  actor: z.string(),
  action: z.string(),
  studyId: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
});
export type AuditEntryView = z.infer<typeof AuditEntryView>;
export const AuditList = z.array(AuditEntryView);

export const RunKind = z.enum(['judge', 'analysis']);
export type RunKind = z.infer<typeof RunKind>;

/** Progress of a judge or analysis run (pushed as `run:progress`; the latest one is in RunsStatus). */
export const RunProgress = z.object({
  studyId: z.string(),
  kind: RunKind,
  state: z.enum(['running', 'done', 'failed']),
  done: z.number(),
  total: z.number(),
  message: z.string(),
});
export type RunProgress = z.infer<typeof RunProgress>;

/**
 * How the judge treats image fields (the dashboard's judge run and the judge CLI's `--images`):
 * `describe` notes in the text that an image was uploaded (any model); `attach` sends the uploaded images
 * to a vision model. Images are not redacted.
 */
export const JudgeImageMode = z.enum(['describe', 'attach']);
export type JudgeImageMode = z.infer<typeof JudgeImageMode>;

/** Body of POST /studies/:studyId/runs/judge (an empty body means the defaults). */
export const JudgeRunRequest = z.object({ images: JudgeImageMode.default('describe') }).strict();
export type JudgeRunRequest = z.infer<typeof JudgeRunRequest>;

export const RunStarted = z.object({ started: z.literal(true) });
export type RunStarted = z.infer<typeof RunStarted>;

/**
 * The latest run of each kind since the server started (null: none), whether a report exists, and the
 * labels of the study's image fields (the dashboard offers `images: 'attach'` only when there are some).
 */
export const RunsStatus = z.object({
  judge: RunProgress.nullable(),
  analysis: RunProgress.nullable(),
  hasReport: z.boolean(),
  imageFields: z.array(z.string()),
});
export type RunsStatus = z.infer<typeof RunsStatus>;

// ---------- socket namespace /admin ----------

export const MonitorSubscribe = z.object({ studyId: Slug }).strict();
export type MonitorSubscribe = z.infer<typeof MonitorSubscribe>;

/** Leaves every monitor room of the socket. Takes no fields (extra ones are ignored). */
export const MonitorUnsubscribe = z.object({});
export type MonitorUnsubscribe = z.infer<typeof MonitorUnsubscribe>;

export const ExportProgress = z.object({ studyId: z.string(), done: z.number(), total: z.number() });
export type ExportProgress = z.infer<typeof ExportProgress>;

/** Client → server events of /admin: payload schema and the schema of `data` in the ack envelope. */
export const adminClientEvents = {
  'monitor:subscribe': { payload: MonitorSubscribe, ack: MonitorSnapshot },
  'monitor:unsubscribe': { payload: MonitorUnsubscribe, ack: EmptyReply },
} as const;
export type AdminClientEventName = keyof typeof adminClientEvents;
export type AdminClientPayload<E extends AdminClientEventName> = z.input<(typeof adminClientEvents)[E]['payload']>;
export type AdminAckData<E extends AdminClientEventName> = z.infer<(typeof adminClientEvents)[E]['ack']>;

/** Server → client pushes of /admin (monitor updates go to the study's subscribers; progress to every researcher). */
export const adminServerPushes = {
  'monitor:update': MonitorSnapshot,
  'export:progress': ExportProgress,
  'run:progress': RunProgress,
  'monitor:group': MonitorGroupPush,
} as const;
export type AdminPushName = keyof typeof adminServerPushes;
export type AdminPush<E extends AdminPushName> = z.infer<(typeof adminServerPushes)[E]>;

/** socket.io typings for the /admin namespace. */
export type AdminClientToServerEvents = {
  [E in AdminClientEventName]: (payload: AdminClientPayload<E>, ack: (reply: Envelope<AdminAckData<E>>) => void) => void;
};
export type AdminServerToClientEvents = {
  [E in AdminPushName]: (payload: AdminPush<E>) => void;
};
