import { z } from 'zod';
import { Slug } from './ids';

/**
 * Participant HTTP API. Every JSON response is an Envelope (common/envelope.ts).
 *
 *  POST /api/join                     JoinRequest → Envelope<JoinResponse>        (rate-limited)
 *  POST /api/join/resume              ResumeRequest → Envelope<JoinedSession>     (rate-limited: 10 per 15 min per IP; 10 refused per platform id, 100 refused in all)
 *  GET  /api/studies/:id/public       → Envelope<StudyPublic>
 *  POST /api/session/upload?field=<fieldId>&name=<file name>
 *       body: the raw image bytes, Content-Type image/png|image/jpeg|image/webp|image/gif,
 *       Authorization: Bearer <token>  → Envelope<UploadResponse>   (too big → 413 code too_large)
 *  GET  /api/session/uploads/:uploadId         → the image bytes   (Bearer header only)
 *  GET  /api/session/materials/:name           → the study file     (Bearer header only)
 */

/** URL query parameters of the study link, passed through as-is (string values only). */
export const UrlParams = z.record(z.string().max(200), z.string().max(2000));
export type UrlParams = z.infer<typeof UrlParams>;

export const JoinRequest = z
  .object({
    studyId: Slug,
    /** The study link's query, e.g. {PROLIFIC_PID, STUDY_ID, SESSION_ID} or {participant_label} or MTurk's {assignmentId, workerId, hitId}. */
    params: UrlParams.refine((p) => Object.keys(p).length <= 50, 'at most 50 parameters'),
  })
  .strict();
export type JoinRequest = z.infer<typeof JoinRequest>;

/** A session opened by this browser: its token and the resume code to show the participant. */
export const JoinedSession = z.object({
  preview: z.literal(false),
  /** Participant token: socket handshake auth and Bearer for HTTP. Bound to this one session; issuing one revokes the session's older tokens. */
  token: z.string(),
  sessionId: z.string(),
  /** True when the platform id already had a session in this study (same session continues). */
  resumed: z.boolean(),
  /**
   * The session's resume code ("K7QM-P3XD"), shown in the session header and on the consent receipt: it
   * reopens the session in another browser when the link has no per-visit id. Null when the server does
   * not know it (it stores only a hash; the client keeps the code it was given).
   */
  resumeCode: z.string().nullable(),
  /**
   * The link names a participant but carries no per-visit id, so this may be the second browser of a session
   * started earlier: the page offers the resume code. Set for every such link, whether or not the id took part.
   */
  offerResume: z.boolean().optional(),
});
export type JoinedSession = z.infer<typeof JoinedSession>;

export const JoinResponse = z.union([
  JoinedSession,
  /** MTurk preview (assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE): show StudyPublic only; no session exists. */
  z.object({ preview: z.literal(true) }),
  /**
   * Only the session's resume code (POST /api/join/resume) can open a session from this link. No longer sent by
   * this server (a link without a per-visit id now gets a fresh session with `offerResume`, whether or not its
   * platform id took part); kept so that clients and scripts written for it still parse the response.
   */
  z.object({ preview: z.literal(false), resumeCodeRequired: z.literal(true) }),
]);
export type JoinResponse = z.infer<typeof JoinResponse>;

/** POST /api/join/resume: the study link's query plus the resume code the participant typed. */
export const ResumeRequest = z
  .object({
    studyId: Slug,
    params: UrlParams.refine((p) => Object.keys(p).length <= 50, 'at most 50 parameters'),
    code: z.string().min(1, 'type your resume code').max(40),
  })
  .strict();
export type ResumeRequest = z.infer<typeof ResumeRequest>;

export const StudyStatus = z.enum(['draft', 'pilot', 'live', 'closed']);
export type StudyStatus = z.infer<typeof StudyStatus>;

export const StudyPublic = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  status: StudyStatus,
  /** Whether new participants can join now (status pilot or live). */
  open: z.boolean(),
  timeLimitMinutes: z.number(),
  tasks: z.array(z.object({ id: z.string(), title: z.string() })),
});
export type StudyPublic = z.infer<typeof StudyPublic>;

export const UPLOAD_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
export const MAX_UPLOAD_BYTES = 5 * 1024 * 1024;

export const UploadQuery = z
  .object({
    field: Slug,
    name: z.string().max(200).optional(),
  })
  .strict();
export type UploadQuery = z.infer<typeof UploadQuery>;

export const UploadResponse = z.object({
  uploadId: z.string(),
  fieldId: z.string(),
  fileName: z.string(),
  contentType: z.string(),
  bytes: z.number(),
  url: z.string(),
});
export type UploadResponse = z.infer<typeof UploadResponse>;
