import { z } from 'zod';

/**
 * The researcher API (HTTP under /api/admin/*, socket.io namespace /admin): request schemas and response
 * types, shared by server/admin and client/admin. Every JSON response is the common Envelope.
 * (Imports zod only, so the client build can use it.)
 */

export const StudyStatusValue = z.enum(['draft', 'pilot', 'live', 'closed']);
export type StudyStatusValue = z.infer<typeof StudyStatusValue>;

export const LoginRequest = z.object({ password: z.string().min(1, 'must not be empty').max(1000) }).strict();
export const StatusChangeRequest = z.object({ status: StudyStatusValue }).strict();
export const ExportRequest = z.object({ includePilot: z.boolean().default(false), includeIdentities: z.boolean().default(false) }).strict();
export const WithdrawRequest = z.object({ participant: z.string().trim().min(1, 'must be the platform id (e.g. PROLIFIC_PID)').max(200) }).strict();
export const MonitorSubscribe = z.object({ studyId: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be a study id') }).strict();

export interface LoginResponse {
  actor: string;
  csrfToken: string;
}

export interface StudySummary {
  id: string;
  title: string;
  status: StudyStatusValue;
  configured: boolean;
  tasks: { id: string; title: string }[];
  conditions: string[];
  /** Session counts: condition → status → n (non-pilot), plus pilot totals per condition. */
  counts: { conditionId: string; status: string; isPilot: boolean; n: number }[];
  totalSessions: number;
  pilotSessions: number;
}

export type ConnectionState = 'connected' | 'idle' | 'disconnected';

export interface MonitorSession {
  sessionId: string;
  taskId: string;
  conditionId: string;
  step: string;
  status: string;
  isPilot: boolean;
  connection: ConnectionState;
  lastActivityAt: number;
  messages: number;
  /** ms since consent (or since the session began, before consent). */
  elapsedMs: number;
  createdAt: number;
}

export interface MonitorSnapshot {
  studyId: string;
  at: number;
  sessions: MonitorSession[];
}

export interface TranscriptMessage {
  id: string;
  role: 'user' | 'assistant';
  text: string;
  status: string;
  createdAt: number;
  tokens: number;
  model: string | null;
  ttftMs: number | null;
  durationMs: number | null;
}

export interface TimelineEvent {
  seq: number;
  type: string;
  serverTs: number;
  clientTs: number | null;
  payload: unknown;
}

export interface SessionDetail {
  session: {
    id: string;
    studyId: string;
    taskId: string;
    conditionId: string;
    step: string;
    status: string;
    isPilot: boolean;
    createdAt: number;
    consentedAt: number | null;
    submittedAt: number | null;
    endedAt: number | null;
  };
  transcript: TranscriptMessage[];
  timeline: TimelineEvent[];
  artifactVersions: { version: number; fields: Record<string, string>; submittedAt: number }[];
  uploads: { id: string; fieldId: string; contentType: string; bytes: number; url: string }[];
  survey: { itemId: string; kind: string; value: number | string | null }[];
  judge: { quality: number | null; samples: { artifactVersion: number; rubricId: string; model: string; sample: number; score: number | null; parseOk: boolean }[] };
  /** Collaborative productivity Pz = z(Q) − z(C) within task; null until the session is judged. */
  pz: number | null;
}

export interface ExportTicket {
  ticket: string;
  downloadUrl: string;
  sessions: number;
  redactions: number;
}

export interface AuditEntryView {
  at: number;
  actor: string;
  action: string;
  studyId: string | null;
  details: Record<string, unknown>;
}

/** Socket events of the /admin namespace. */
export const ADMIN_EVENTS = {
  subscribe: 'monitor:subscribe',
  unsubscribe: 'monitor:unsubscribe',
  update: 'monitor:update',
  exportProgress: 'export:progress',
} as const;
