import type { z } from 'zod';
import {
  AuditList,
  EmptyReply,
  ExportRequest,
  ExportTicket,
  JudgeRunRequest,
  LoginRequest,
  LoginResponse,
  RunsStatus,
  RunStarted,
  SessionDetail,
  StatusChangeRequest,
  StatusChangeResponse,
  StudySummaryList,
  WithdrawalResult,
  WithdrawRequest,
  type RunKind,
} from '../../common/admin';
import { SessionListPage, WithdrawalPreview, WithdrawalPreviewRequest, type PilotFilter } from '../../common/adminSessionList';
import { Envelope } from '../../common/envelope';

/**
 * The dashboard's HTTP client for the researcher API (common/admin.ts): same-origin fetch with the
 * researcher cookie; state-changing requests echo the CSRF cookie in X-CSRF-Token. Request bodies are
 * checked with the shared schemas before sending, and every reply is validated as an Envelope of the
 * route's response schema, so a server/client mismatch shows as a clear error instead of a broken page.
 */

export class AdminApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'AdminApiError';
  }
}

function csrfToken(): string {
  const match = /(?:^|;\s*)tandem_admin_csrf=([^;]+)/.exec(document.cookie);
  return match?.[1] ? decodeURIComponent(match[1]) : '';
}

async function unwrap<S extends z.ZodType>(res: Response, schema: S, what: string): Promise<z.infer<S>> {
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw new AdminApiError(res.status, 'internal', `the server answered ${res.status} without JSON`);
  }
  const parsed = Envelope(schema).safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AdminApiError(res.status, 'internal', `unexpected reply to ${what}${issue ? ` (${issue.path.join('.')}: ${issue.message})` : ''}`);
  }
  // TypeScript cannot narrow the generic union; the schema has just checked this shape.
  const reply = parsed.data as Envelope<z.infer<S>>;
  if (!reply.ok) throw new AdminApiError(res.status, reply.error.code, reply.error.message);
  return reply.data;
}

async function get<S extends z.ZodType>(path: string, schema: S): Promise<z.infer<S>> {
  const res = await fetch(path, { credentials: 'same-origin', headers: { accept: 'application/json' } });
  return unwrap(res, schema, `GET ${path}`);
}

/** POSTs `body` after checking it with `request` (when given). */
async function post<S extends z.ZodType>(path: string, schema: S, body: unknown = {}, request?: z.ZodType): Promise<z.infer<S>> {
  if (request) {
    const checked = request.safeParse(body);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new AdminApiError(0, 'invalid_input', `${issue?.path.join('.') || 'request'}: ${issue?.message ?? 'invalid'}`);
    }
  }
  const res = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrfToken() },
    body: JSON.stringify(body),
  });
  return unwrap(res, schema, `POST ${path}`);
}

const study = (studyId: string) => `/api/admin/studies/${encodeURIComponent(studyId)}`;

/** One typed function per researcher route. */
export const adminApi = {
  me: () => get('/api/admin/me', LoginResponse),
  login: (body: LoginRequest) => post('/api/admin/login', LoginResponse, body, LoginRequest),
  logout: () => post('/api/admin/logout', EmptyReply),
  studies: () => get('/api/admin/studies', StudySummaryList),
  setStatus: (studyId: string, body: StatusChangeRequest) => post(`${study(studyId)}/status`, StatusChangeResponse, body, StatusChangeRequest),
  audit: (studyId: string) => get(`${study(studyId)}/audit`, AuditList),
  session: (sessionId: string) => get(`/api/admin/sessions/${encodeURIComponent(sessionId)}`, SessionDetail),
  exportStudy: (studyId: string, body: z.input<typeof ExportRequest>) => post(`${study(studyId)}/exports`, ExportTicket, body, ExportRequest),
  withdrawalPreview: (studyId: string, body: WithdrawalPreviewRequest) =>
    post(`${study(studyId)}/withdrawal-preview`, WithdrawalPreview, body, WithdrawalPreviewRequest),
  withdraw: (studyId: string, body: WithdrawRequest) => post(`${study(studyId)}/withdrawals`, WithdrawalResult, body, WithdrawRequest),
  startRun: (studyId: string, kind: RunKind) => post(`${study(studyId)}/runs/${kind}`, RunStarted),
  startJudge: (studyId: string, body: z.input<typeof JudgeRunRequest>) => post(`${study(studyId)}/runs/judge`, RunStarted, body, JudgeRunRequest),
  runs: (studyId: string) => get(`${study(studyId)}/runs`, RunsStatus),
  reportUrl: (studyId: string, version: number) => `${study(studyId)}/analysis/report?v=${version}`,
  /** Every session of the study, one page at a time; `query` holds only the parameters that are set. */
  sessionList: (studyId: string, query: Record<string, string>) => get(`${study(studyId)}/session-list?${new URLSearchParams(query)}`, SessionListPage),
  dashboardPlotsUrl: (studyId: string, pilot: PilotFilter, version: number) => `${study(studyId)}/dashboard/plots?pilot=${pilot}&v=${version}`,
};

/** The typed GET/POST for other dashboard modules' routes (client/admin/wizard/wizardApi.ts). */
export { get as adminGet, post as adminPost };
