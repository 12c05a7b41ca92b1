import { z } from 'zod';
import { ArtifactField, CompletionOutcome } from './study';
import { PublicSurveyItem } from './survey';

/** The participant's session as the client sees it. Everything a reload needs to resume exactly. */

export const Step = z.enum(['consent', 'instructions', 'workspace', 'survey', 'complete']);
export type Step = z.infer<typeof Step>;

export const SessionStatus = z.enum(['active', 'completed', 'declined', 'timed_out']);
export type SessionStatus = z.infer<typeof SessionStatus>;

/**
 * complete: a finished reply. stopped: the participant pressed Stop (text is what had arrived).
 * interrupted: the stream died mid-reply (text is partial; retry allowed). error: nothing usable arrived (retry allowed).
 */
export const MessageStatus = z.enum(['complete', 'stopped', 'interrupted', 'error']);
export type MessageStatus = z.infer<typeof MessageStatus>;

export const ChatMessageView = z.object({
  /** Server id. For assistant messages this is the replyId used by chat:delta/done/error. */
  id: z.string(),
  role: z.enum(['user', 'assistant']),
  text: z.string(),
  /** The client-generated id of a participant message; null for assistant messages. */
  clientId: z.string().nullable(),
  /** For assistant messages: id of the user message it answers. */
  replyTo: z.string().nullable(),
  status: MessageStatus,
  /** For failed replies: a message fit to show the participant. */
  error: z.string().nullable(),
  createdAt: z.number(),
});
export type ChatMessageView = z.infer<typeof ChatMessageView>;

export const MaterialView = z.object({
  name: z.string(),
  description: z.string().nullable(),
  /** GET with the participant token (Authorization: Bearer header only). */
  url: z.string(),
});
export type MaterialView = z.infer<typeof MaterialView>;

/** Artifact field values keyed by field id. Image fields hold an upload id from POST /api/session/upload. */
export const ArtifactValues = z.record(z.string(), z.string());
export type ArtifactValues = z.infer<typeof ArtifactValues>;

export const UploadView = z.object({
  id: z.string(),
  fieldId: z.string(),
  fileName: z.string(),
  contentType: z.string(),
  bytes: z.number(),
  /** GET with the participant token (Authorization: Bearer header only). */
  url: z.string(),
});
export type UploadView = z.infer<typeof UploadView>;

export const SessionState = z.object({
  sessionId: z.string(),
  studyId: z.string(),
  studyTitle: z.string(),
  step: Step,
  status: SessionStatus,
  isPilot: z.boolean(),
  consent: z.object({ version: z.string(), text: z.string() }),
  task: z.object({
    id: z.string(),
    title: z.string(),
    instructions: z.string(),
    materials: z.array(MaterialView),
    fields: z.array(ArtifactField),
  }),
  /**
   * Only the public label; the condition id is never sent to the participant. `seat`: the participant sits in
   * a teamwork task's seat, with a team or on their own (never which team arm: calm and test look alike).
   */
  assistant: z.object({ label: z.string(), offline: z.boolean(), seat: z.enum(['team', 'alone']).optional() }),
  limits: z.object({
    maxMessageChars: z.number(),
    maxUploadBytes: z.number(),
    uploadTypes: z.array(z.string()),
  }),
  /** ms UTC when the time limit ends (counted from consent); null before consent. */
  deadline: z.number().nullable(),
  /** Server time when this snapshot was made (ms UTC), to correct client clock skew for the countdown. */
  serverNow: z.number(),
  messages: z.array(ChatMessageView),
  /** The reply currently streaming, with the text so far (after a reload, deltas continue from here). */
  replyInFlight: z.object({ replyId: z.string(), replyTo: z.string(), text: z.string() }).nullable(),
  /** True when chat:retry would regenerate a reply (the last participant message has no usable answer, e.g. after a failure or a server restart). */
  canRetry: z.boolean().optional(),
  /** `version` counts the draft's saves; a tab saves with it as `baseVersion` (artifact:draft). */
  draft: z.object({ fields: ArtifactValues, savedAt: z.number(), version: z.number() }).nullable(),
  uploads: z.array(UploadView),
  artifactVersions: z.array(z.object({ version: z.number(), fields: ArtifactValues, submittedAt: z.number() })),
  /** The survey definition (always present so the client can render it at the survey step); attention checks without their answer. */
  survey: z.object({ id: z.string(), title: z.string(), intro: z.string().optional(), items: z.array(PublicSurveyItem) }),
  surveySubmitted: z.boolean(),
  /**
   * Present once the session has ended (completed, declined or timed out). `lobbyReleased`: a group lobby released
   * the person (no group could be formed); the outcome is timed_out and the code the lobby's.
   */
  completion: z.object({ outcome: CompletionOutcome, code: z.string(), redirectUrl: z.string().nullable(), lobbyReleased: z.boolean().optional() }).nullable(),
});
export type SessionState = z.infer<typeof SessionState>;
