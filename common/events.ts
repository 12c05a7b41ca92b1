/**
 * Every participant socket event, typed once for both ends (server/socket/ and the client's socket wrapper).
 *
 * FLOW
 *  1. HTTP  POST /api/join {studyId, params: <URL query>} → {preview:false, token, sessionId, resumed}
 *     (or {preview:true} for MTurk's ASSIGNMENT_ID_NOT_AVAILABLE). Keep the token (sessionStorage/localStorage
 *     keyed by study); joining again with the same per-visit id (SESSION_ID, assignmentId) returns a new token
 *     for the SAME session; a platform id without one gets a fresh session with `offerResume` (the resume code,
 *     POST /api/join/resume, reopens the earlier one).
 *  2. Socket  io(origin, { auth: { token } }). A bad token fails the connection with connect_error
 *     message "unauthorized". Every client event is `socket.emit(name, payload, ack)`; the ack is always an
 *     Envelope: {ok:true,data} | {ok:false,error:{code,message,field?}}. Invalid payload → ok:false with
 *     code "invalid_input", `field` naming the offending field, and nothing is written.
 *  3. `session:state` → SessionState snapshot: render the step it names. Call it on every (re)connect.
 *  4. consent  → `consent:respond {accept, version}` (decline ends the session with the declined code)
 *     instructions → `step:advance {from:'instructions'}` → workspace
 *     workspace → `chat:send` / `chat:stop` / `chat:retry`, `artifact:draft` (autosave), uploads via HTTP,
 *                 `artifact:submit` → survey
 *     survey → `survey:submit` → complete (SessionState.completion has code + redirectUrl)
 *  5. Chat: `chat:send {clientId, text, clientTs}` acks AFTER the message is committed, with {message, replyId}.
 *     Resending the same clientId returns the same ack (duplicate:true) and stores nothing new.
 *     The reply then streams as pushes `chat:delta {replyId, text}` (text = the new fragment), ending in
 *     `chat:done {message}` or `chat:error {replyId, message, retryable, partial}`. `chat:stop` aborts the
 *     reply in flight (ends with chat:done, status 'stopped'). `chat:retry` regenerates the reply to the last
 *     participant message when the last reply failed or is missing. At most one reply is in flight per
 *     session (a send meanwhile gets code "busy").
 *     Every tab of the session also gets `chat:message {message}` for each stored participant message, and the
 *     session's other tabs get `artifact:draft {fields, version, savedAt}` for each saved draft (live draft sync).
 *  6. The server pushes `session:state` whenever the session changes without a client action (time limit hit).
 *  7. Workspace integrity telemetry goes as `telemetry:batch` (common/telemetryBatch.ts) at most every 10 s and when
 *     the page is hidden or left; past the per-session bound the ack is limit_reached (stop sending).
 *  All client events carry clientTs (ms, browser clock) and are logged with server time.
 */
import { z } from 'zod';
import { ClientTs } from './ids';
import { ChatMessageView, SessionState, Step, ArtifactValues } from './session';
import { SurveyAnswers } from './survey';
import type { Envelope } from './envelope';
import { TelemetryBatch, TelemetryBatchAck } from './telemetryBatch';

export const EmptyPayload = z.object({ clientTs: ClientTs.optional() }).strict();

export const ConsentRespond = z.object({ accept: z.boolean(), version: z.string().min(1), clientTs: ClientTs }).strict();
export type ConsentRespond = z.infer<typeof ConsentRespond>;

/** Advance from `from` to the next step. Idempotent: if the session is already past `from`, the current state is returned. */
export const StepAdvance = z.object({ from: Step, clientTs: ClientTs }).strict();
export type StepAdvance = z.infer<typeof StepAdvance>;

/** Upper bound for any message on the wire; the study's chat.max_message_chars (SessionState.limits) is usually lower. */
export const MAX_MESSAGE_CHARS_HARD = 100_000;

export const ChatSend = z
  .object({
    /** Client-generated unique id (e.g. crypto.randomUUID()); a resend with the same id is stored once. */
    clientId: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, 'must be 8–64 chars of A-Z, a-z, 0-9, "_" or "-"'),
    text: z.string().max(MAX_MESSAGE_CHARS_HARD, `must be at most ${MAX_MESSAGE_CHARS_HARD} characters`).refine((t) => t.trim().length > 0, 'must not be empty'),
    clientTs: ClientTs,
  })
  .strict();
export type ChatSend = z.infer<typeof ChatSend>;
export const ChatSendAck = z.object({ message: ChatMessageView, replyId: z.string().nullable(), duplicate: z.boolean() });
export type ChatSendAck = z.infer<typeof ChatSendAck>;

export const ChatStop = z.object({ replyId: z.string().optional(), clientTs: ClientTs }).strict();
export type ChatStop = z.infer<typeof ChatStop>;
export const ChatStopAck = z.object({ stopped: z.boolean() });
export type ChatStopAck = z.infer<typeof ChatStopAck>;

export const ChatRetry = z.object({ clientTs: ClientTs }).strict();
export type ChatRetry = z.infer<typeof ChatRetry>;
export const ChatRetryAck = z.object({ replyId: z.string() });
export type ChatRetryAck = z.infer<typeof ChatRetryAck>;

/**
 * Autosave. `baseVersion` is the draft version this tab's values started from (SessionState.draft.version,
 * 0 before any draft, then each ack's `version`): when another tab saved since, the save is refused with
 * code "conflict" and nothing is written. Without it the save overwrites whatever is stored.
 */
export const ArtifactDraft = z
  .object({ fields: ArtifactValues, clientTs: ClientTs, baseVersion: z.number().int().nonnegative().optional() })
  .strict();
export type ArtifactDraft = z.infer<typeof ArtifactDraft>;
/** `version`: the stored draft's version after this save (unchanged when the values were already stored). */
export const ArtifactDraftAck = z.object({ savedAt: z.number(), version: z.number() });
export type ArtifactDraftAck = z.infer<typeof ArtifactDraftAck>;

/** Submit the artifact (after the participant confirmed). Creates a new stored version and moves to the survey. */
export const ArtifactSubmit = z.object({ fields: ArtifactValues, clientTs: ClientTs }).strict();
export type ArtifactSubmit = z.infer<typeof ArtifactSubmit>;

export const SurveySubmit = z.object({ answers: SurveyAnswers, clientTs: ClientTs }).strict();
export type SurveySubmit = z.infer<typeof SurveySubmit>;

export const TelemetryKind = z.enum(['focus', 'blur', 'paste', 'visibility']);
export type TelemetryKind = z.infer<typeof TelemetryKind>;
export const Telemetry = z
  .object({
    kind: TelemetryKind,
    clientTs: ClientTs,
    /** paste: number of characters pasted (never the content). */
    chars: z.number().int().nonnegative().optional(),
    /** paste: where it happened: "chat" or an artifact field id. */
    target: z.string().max(64).optional(),
    /** visibility: document.visibilityState. */
    state: z.enum(['visible', 'hidden']).optional(),
  })
  .strict();
export type Telemetry = z.infer<typeof Telemetry>;
export const TelemetryAck = z.object({ seq: z.number() });
export type TelemetryAck = z.infer<typeof TelemetryAck>;

/** Client → server events: payload schema and the schema of `data` in the ack envelope. */
export const clientEvents = {
  'session:state': { payload: EmptyPayload, ack: SessionState },
  'consent:respond': { payload: ConsentRespond, ack: SessionState },
  'step:advance': { payload: StepAdvance, ack: SessionState },
  'chat:send': { payload: ChatSend, ack: ChatSendAck },
  'chat:stop': { payload: ChatStop, ack: ChatStopAck },
  'chat:retry': { payload: ChatRetry, ack: ChatRetryAck },
  'artifact:draft': { payload: ArtifactDraft, ack: ArtifactDraftAck },
  'artifact:submit': { payload: ArtifactSubmit, ack: SessionState },
  'survey:submit': { payload: SurveySubmit, ack: SessionState },
  telemetry: { payload: Telemetry, ack: TelemetryAck },
  /** Integrity telemetry, batched by the browser (common/telemetryBatch.ts). */
  'telemetry:batch': { payload: TelemetryBatch, ack: TelemetryBatchAck },
} as const;
export type ClientEventName = keyof typeof clientEvents;
export type ClientPayload<E extends ClientEventName> = z.input<(typeof clientEvents)[E]['payload']>;
export type AckData<E extends ClientEventName> = z.infer<(typeof clientEvents)[E]['ack']>;

export const ChatDelta = z.object({ replyId: z.string(), text: z.string() });
export type ChatDelta = z.infer<typeof ChatDelta>;
export const ChatDone = z.object({ message: ChatMessageView });
export type ChatDone = z.infer<typeof ChatDone>;
export const ChatError = z.object({
  replyId: z.string(),
  /** Fit to show the participant. */
  message: z.string(),
  retryable: z.boolean(),
  /** The stored failed reply (status interrupted or error), with any partial text. */
  partial: ChatMessageView.nullable(),
});
export type ChatError = z.infer<typeof ChatError>;

/**
 * A participant message was stored (pushed after the chat:send ack to every socket of the session, so other
 * tabs show it too; the sending tab already has it and de-duplicates by message id / client id).
 */
export const ChatMessagePush = z.object({ message: ChatMessageView });
export type ChatMessagePush = z.infer<typeof ChatMessagePush>;

/**
 * A draft was saved from another tab of the session (pushed after the saving tab's `artifact:draft` ack to the
 * session's other sockets, never to the saving one): `version` and `savedAt` as in that ack. A tab with no
 * unsaved edits of its own shows these values and bases its next save on `version`; a tab with unsaved edits
 * keeps them, and its save is refused with "conflict" as before.
 */
export const ArtifactDraftPush = z.object({ fields: ArtifactValues, version: z.number().int().nonnegative(), savedAt: z.number() });
export type ArtifactDraftPush = z.infer<typeof ArtifactDraftPush>;

/** Server → client pushes (emitted to every socket of the session). */
export const serverPushes = {
  'artifact:draft': ArtifactDraftPush,
  'chat:delta': ChatDelta,
  'chat:done': ChatDone,
  'chat:error': ChatError,
  'chat:message': ChatMessagePush,
  'session:state': SessionState,
} as const;
export type ServerPushName = keyof typeof serverPushes;
export type ServerPush<E extends ServerPushName> = z.infer<(typeof serverPushes)[E]>;

/** socket.io typings: `Server<ClientToServerEvents, ServerToClientEvents>` / `Socket<ServerToClientEvents, ClientToServerEvents>`. */
export type ClientToServerEvents = {
  [E in ClientEventName]: (payload: ClientPayload<E>, ack: (reply: Envelope<AckData<E>>) => void) => void;
};
export type ServerToClientEvents = {
  [E in ServerPushName]: (payload: ServerPush<E>) => void;
};

/** Handshake: `io(url, { auth: { token } })`. */
export const SocketAuth = z.object({ token: z.string().min(10).max(200) });
export type SocketAuth = z.infer<typeof SocketAuth>;
