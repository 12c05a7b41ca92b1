import type { Response } from 'express';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { fail, failFromZod, ok, type ErrorCode } from '../../common/envelope';
import { ServiceError } from '../services/serviceContext';
import { isStoreUnavailable } from '../../lib/storage';

/** What a participant or researcher sees while the database is briefly away (the request may be repeated as is). */
export const UNAVAILABLE_MESSAGE = 'The server is briefly unavailable. Please try again in a moment.';

const STATUS: Record<ErrorCode, number> = {
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  wrong_step: 409,
  conflict: 409,
  busy: 409,
  too_large: 413,
  rate_limited: 429,
  limit_reached: 429,
  storage_full: 507,
  study_unavailable: 403,
  session_over: 409,
  unavailable: 503,
  internal: 500,
};

export function sendOk<T>(res: Response, data: T, status = 200): void {
  res.status(status).json(ok(data));
}

export function sendFail(res: Response, code: ErrorCode, message: string, field?: string): void {
  res.status(STATUS[code]).json(fail(code, message, field));
}

export function sendZodFail(res: Response, error: z.ZodError, context: string): void {
  res.status(400).json(failFromZod(error, context));
}

/** Sends the envelope for an error a service threw; logs unexpected ones without exposing them. */
export function sendError(res: Response, err: unknown, log: Logger, context: string): void {
  if (err instanceof ServiceError) return sendFail(res, err.code, err.message, err.field);
  if (isStoreUnavailable(err)) {
    log.warn({ err: (err as Error).message, context }, 'store unavailable');
    return sendFail(res, 'unavailable', UNAVAILABLE_MESSAGE);
  }
  log.error({ err, context }, 'unexpected error');
  sendFail(res, 'internal', 'Something went wrong on the server. Please try again.');
}

/** 32768 → "32 KB", 5242880 → "5 MB" (binary units, as the limits are set). */
export function byteSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
  if (bytes >= 1024) return `${Math.round((bytes / 1024) * 10) / 10} KB`;
  return `${bytes} bytes`;
}

/** A body a parser refused as too large, told the limit of the route that refused it (body-parser's `limit`). */
export function tooLargeMessage(limit: number | undefined): string {
  return typeof limit === 'number' && Number.isFinite(limit) ? `the request body is too large (at most ${byteSize(limit)})` : 'the request body is too large';
}
