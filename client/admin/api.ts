/**
 * The dashboard's HTTP client: same-origin fetch with the researcher cookie; state-changing requests echo
 * the CSRF cookie in X-CSRF-Token. Every response is the common Envelope.
 */
export type {
  StudySummary,
  MonitorSnapshot,
  MonitorSession,
  SessionDetail,
  TranscriptMessage,
  TimelineEvent,
  ExportTicket,
  AuditEntryView,
} from '../../server/admin/api';

export class AdminApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function csrfToken(): string {
  const match = /(?:^|;\s*)tandem_admin_csrf=([^;]+)/.exec(document.cookie);
  return match?.[1] ? decodeURIComponent(match[1]) : '';
}

async function unwrap<T>(res: Response): Promise<T> {
  let body: { ok: boolean; data?: T; error?: { code: string; message: string } };
  try {
    body = (await res.json()) as typeof body;
  } catch {
    throw new AdminApiError(res.status, 'internal', `the server answered ${res.status} without JSON`);
  }
  if (!body.ok) throw new AdminApiError(res.status, body.error?.code ?? 'internal', body.error?.message ?? 'request failed');
  return body.data as T;
}

export async function apiGet<T>(path: string): Promise<T> {
  return unwrap<T>(await fetch(path, { credentials: 'same-origin', headers: { accept: 'application/json' } }));
}

export async function apiPost<T>(path: string, body: unknown = {}): Promise<T> {
  return unwrap<T>(
    await fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrfToken() },
      body: JSON.stringify(body),
    }),
  );
}

export const formatTime = (ms: number | null): string => (ms === null ? '—' : new Date(ms).toLocaleString());

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const m = Math.floor(s / 60);
  return m > 0 ? `${m} min ${String(s % 60).padStart(2, '0')} s` : `${s} s`;
}
