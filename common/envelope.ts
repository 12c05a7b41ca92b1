import { z } from 'zod';

/**
 * The one reply envelope for every socket ack and every JSON HTTP response:
 *   { ok: true, data }  or  { ok: false, error: { code, message, field? } }
 * `field` names the offending field as a dotted path (e.g. "text", "fields.plot", "answers.q1").
 */

export const ErrorCode = z.enum([
  'invalid_input', // payload failed validation (see field)
  'unauthorized', // missing/unknown token
  'forbidden', // token valid but not allowed (e.g. other session)
  'not_found',
  'wrong_step', // action not allowed at the session's current step
  'conflict', // e.g. retry when there is nothing to retry
  'busy', // a reply is already in flight
  'too_large', // oversized message or upload
  'limit_reached', // a per-session budget is used up (e.g. chat messages); retrying will not help
  'storage_full', // the session's storage budget (SESSION_STORAGE_BUDGET_MB) is used up; only submitting still works
  'rate_limited',
  'study_unavailable', // study closed / draft
  'session_over', // session completed, declined or timed out
  'unavailable', // the server's database is briefly unavailable; retrying helps
  'internal',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ErrorInfo = z.object({ code: ErrorCode, message: z.string(), field: z.string().optional() });
export type ErrorInfo = z.infer<typeof ErrorInfo>;

export type Envelope<T> = { ok: true; data: T } | { ok: false; error: ErrorInfo };

/** Schema for an envelope carrying `data` of the given schema (for clients validating replies). */
export function Envelope<T extends z.ZodType>(data: T) {
  return z.discriminatedUnion('ok', [
    z.object({ ok: z.literal(true), data }),
    z.object({ ok: z.literal(false), error: ErrorInfo }),
  ]);
}

export function ok<T>(data: T): Envelope<T> {
  return { ok: true, data };
}

export function fail(code: ErrorCode, message: string, field?: string): { ok: false; error: ErrorInfo } {
  return field === undefined ? { ok: false, error: { code, message } } : { ok: false, error: { code, message, field } };
}

/** Turns a zod error into a failure naming the first offending field; `context` prefixes the message (e.g. the event name). */
export function failFromZod(error: z.ZodError, context: string): { ok: false; error: ErrorInfo } {
  const issue = error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : undefined;
  const what = issue ? issue.message : 'invalid input';
  return fail('invalid_input', `${context}: ${field ? `${field}: ` : ''}${what}`, field);
}
