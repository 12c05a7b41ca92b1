import { SIMULATED_PARAM } from '../../common/simulatedParticipant';
import type { JoinedSession, JoinResponse, UrlParams, UploadResponse } from '../../common/http';
import type { Envelope } from '../../common/envelope';

/**
 * The participant HTTP calls a simulated participant makes, retried while the server is down
 * (connection refused during a crash/restart) or rate-limiting, until `deadlineMs`.
 */

export interface HttpAttemptLog {
  (detail: { what: string; attempt: number; status: number | null; error?: string }): void;
}

async function withRetry<T>(what: string, deadlineMs: number, log: HttpAttemptLog | undefined, fn: () => Promise<{ status: number; body: unknown }>, accept: (status: number, body: unknown) => T | null): Promise<T> {
  const deadline = performance.now() + deadlineMs;
  let delay = 100;
  for (let attempt = 1; ; attempt++) {
    let status: number | null = null;
    let error: string | undefined;
    try {
      const res = await fn();
      status = res.status;
      const accepted = accept(res.status, res.body);
      if (accepted !== null) return accepted;
      error = JSON.stringify(res.body).slice(0, 300);
    } catch (e) {
      error = e instanceof Error ? `${e.message}${e.cause ? ` (${String((e.cause as Error).message ?? e.cause)})` : ''}` : String(e);
    }
    log?.({ what, attempt, status, error });
    // 4xx other than 429 is a real answer: do not hammer.
    if (status !== null && status >= 400 && status < 500 && status !== 429) {
      throw new Error(`${what}: HTTP ${status}: ${error}`);
    }
    if (performance.now() + delay > deadline) throw new Error(`${what}: gave up after ${attempt} attempts: ${error}`);
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 2_000);
  }
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* keep the raw text */
  }
  return { status: res.status, body: parsed };
}

export function joinStudy(baseUrl: string, studyId: string, params: UrlParams, deadlineMs: number, log?: HttpAttemptLog): Promise<JoinedSession> {
  return withRetry(
    'POST /api/join',
    deadlineMs,
    log,
    () => postJson(`${baseUrl}/api/join`, { studyId, params }),
    (status, body) => {
      const env = body as Envelope<JoinResponse>;
      if (status === 200 && env?.ok && env.data.preview === false && 'token' in env.data) return env.data;
      return null;
    },
  );
}

/**
 * A simulated participant's link: Prolific-shaped, with a per-visit SESSION_ID, so that joining again
 * (a retry after a lost reply, the resume check after a crash) resumes the same session, as a real
 * participant's own link does. A link without a per-visit id would need the resume code. It carries the simulated
 * flag (common/simulatedParticipant.ts): in a pilot study the session is recorded as simulated.
 */
export function visitLinkParams(label: string): UrlParams {
  return { PROLIFIC_PID: label, STUDY_ID: 'harness', SESSION_ID: `${label}-visit`, [SIMULATED_PARAM]: '1' };
}

/** A valid 1×1 PNG, for image artifact fields. */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

export function uploadImage(baseUrl: string, token: string, fieldId: string, deadlineMs: number, log?: HttpAttemptLog): Promise<UploadResponse> {
  return withRetry(
    'POST /api/session/upload',
    deadlineMs,
    log,
    async () => {
      const res = await fetch(`${baseUrl}/api/session/upload?field=${encodeURIComponent(fieldId)}&name=plot.png`, {
        method: 'POST',
        headers: { 'content-type': 'image/png', authorization: `Bearer ${token}` },
        body: TINY_PNG,
      });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* raw */
      }
      return { status: res.status, body };
    },
    (status, body) => {
      const env = body as Envelope<UploadResponse>;
      return status >= 200 && status < 300 && env?.ok ? env.data : null;
    },
  );
}
