import type { Redactor } from './redaction';
import type { FreeTextExport } from '../../common/study';
import { sanitizeProviderUrl } from '../../lib/llm/openaiProvider';

/**
 * Makes a trajectory event payload safe for events.jsonl: identity-bearing keys are dropped to a marker,
 * the server session id becomes its pseudonym, upload ids become dataset paths, a provider URL is kept
 * (sanitised, not redacted), and every remaining string goes through the redactor.
 */

/** Keys whose values identify a person or grant access, wherever they appear in a payload. */
const IDENTITY_KEY =
  /^(url_?params|query|search|href|referr?er|token|participant_?token|access_?token|auth\w*|cookie|headers|ip|ip_?address|remote_?address|user_?agent|platform_?(user|study|session)_?id|prolific_?pid|worker_?id|assignment_?id|hit_?id|participant_?label|platform_?id|email|phone)$/i;

/**
 * The endpoint that answered (reply provenance). Text redaction would mangle it (a loopback or private
 * provider's host becomes "[REDACTED:ip]"), losing the record of which provider answered; it names a
 * service, not a person. It is re-sanitised instead (userinfo, query, fragment dropped) so a credential
 * stored by an older version never reaches a dataset.
 */
const PROVIDER_URL_KEY = /^provider_?url$/i;

/** A participant's own name for an uploaded file ("jane-doe-plot.png") may be personal: never exported as is. */
const FILE_NAME_KEY = /^(file_?name|original_?(file_?)?name)$/i;

export interface PayloadContext {
  sessionId: string;
  pseudonym: string;
  redactor: Redactor;
  /** upload id → path inside the dataset (artifacts/…). */
  uploadPaths: ReadonlyMap<string, string>;
}

/** URL parameters are an object of strings; model parameters ({temperature, max_tokens}) are not. */
function looksLikeUrlParams(v: unknown): boolean {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const values = Object.values(v);
  return values.length > 0 && values.every((x) => typeof x === 'string');
}

export function sanitizePayload(value: unknown, ctx: PayloadContext): unknown {
  if (typeof value === 'string') {
    if (value === ctx.sessionId) return ctx.pseudonym;
    const upload = ctx.uploadPaths.get(value);
    if (upload !== undefined) return upload;
    return ctx.redactor.redact(value.split(ctx.sessionId).join(ctx.pseudonym));
  }
  if (Array.isArray(value)) return value.map((v) => sanitizePayload(v, ctx));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    const uploadPath = uploadPathOf(value as Record<string, unknown>, ctx);
    for (const [key, v] of Object.entries(value)) {
      if (FILE_NAME_KEY.test(key) && typeof v === 'string') {
        // The neutral name the file has in the dataset (artifacts/<pseudonym>/<n>-<field>.<ext>), as artifacts.jsonl uses.
        if (uploadPath !== undefined) define(out, key, uploadPath.slice(uploadPath.lastIndexOf('/') + 1));
        else {
          ctx.redactor.counts.identity++;
          define(out, key, '[REDACTED:identity]');
        }
      } else if (PROVIDER_URL_KEY.test(key) && typeof v === 'string') {
        define(out, key, sanitizeProviderUrl(v));
      } else if (IDENTITY_KEY.test(key) || (key === 'params' && looksLikeUrlParams(v))) {
        ctx.redactor.counts.identity++;
        define(out, key, '[REDACTED:identity]');
      } else define(out, key, sanitizePayload(v, ctx));
    }
    return out;
  }
  return value;
}

/** Sets an own property: a "__proto__" key in stored JSON stays data, never a prototype. */
function define(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The dataset path of the upload an object describes (its uploadId / id), if any. */
function uploadPathOf(value: Record<string, unknown>, ctx: PayloadContext): string | undefined {
  for (const key of ['uploadId', 'upload_id', 'id']) {
    const id = value[key];
    if (typeof id === 'string' && ctx.uploadPaths.has(id)) return ctx.uploadPaths.get(id);
  }
  return undefined;
}

/** What an omitted free-text survey answer becomes in events.jsonl. */
export const OMITTED_FREE_TEXT = '[OMITTED:free_text]';

/**
 * Applies the study's export.free_text setting to a survey.submitted payload: its text answers (the string
 * values of `answers`; Likert and attention-check answers are numbers) are replaced by OMITTED_FREE_TEXT
 * ("omitted"), or kept for the redactor ("redacted"). Returns the payload and how many text answers it held.
 */
export function applyFreeTextSetting(type: string, payload: unknown, setting: FreeTextExport): { payload: unknown; answers: number } {
  if (type !== 'survey.submitted' || payload === null || typeof payload !== 'object') return { payload, answers: 0 };
  const answers = (payload as { answers?: unknown }).answers;
  if (answers === null || typeof answers !== 'object' || Array.isArray(answers)) return { payload, answers: 0 };
  let count = 0;
  const shown: Record<string, unknown> = {};
  for (const [item, value] of Object.entries(answers)) {
    if (typeof value === 'string') count++;
    define(shown, item, typeof value === 'string' && setting === 'omitted' ? OMITTED_FREE_TEXT : value);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payload)) define(out, key, key === 'answers' ? shown : value);
  return { payload: out, answers: count };
}
