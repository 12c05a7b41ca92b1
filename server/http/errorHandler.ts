import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import type { ErrorCode } from '../../common/envelope';
import { sendFail, tooLargeMessage } from './respond';

/** What body-parser, the router (bad %-encoding) and send report as a client's mistake. */
interface HttpishError {
  type?: string;
  status?: number;
  statusCode?: number;
  expose?: boolean;
  message?: string;
  /** body-parser's limit in bytes, on entity.too.large. */
  limit?: number;
}

const CODE_BY_STATUS: Record<number, ErrorCode> = { 400: 'invalid_input', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 413: 'too_large', 429: 'rate_limited' };

/**
 * The last error handler of the app: every error becomes an envelope, never a stack trace.
 * Client mistakes (malformed or oversized JSON on any route, including the admin sub-app; a URL that
 * does not decode) are 4xx. Request bodies are never logged: body-parser attaches the raw body to its
 * errors, and on /api/admin/login that body holds a password.
 */
export function finalErrorHandler(log: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const e = (err ?? {}) as HttpishError;
    const status = e.status ?? e.statusCode;
    if (res.headersSent) {
      log.warn({ path: req.path, error: e.message }, 'error after the response started');
      return;
    }
    if (e.type === 'entity.too.large' || status === 413) return sendFail(res, 'too_large', tooLargeMessage(e.limit));
    if (e.type === 'entity.parse.failed') return sendFail(res, 'invalid_input', 'the request body is not valid JSON');
    if (typeof status === 'number' && status >= 400 && status < 500) {
      log.debug({ path: req.path, status, type: e.type }, 'client error');
      return sendFail(res, CODE_BY_STATUS[status] ?? 'invalid_input', status === 404 ? 'not found' : 'the request is malformed');
    }
    log.error({ err: withoutBody(err), path: req.path }, 'unhandled request error');
    sendFail(res, 'internal', 'Something went wrong on the server.');
  };
}

/** A copy of an error without the request body body-parser attaches to it. */
function withoutBody(err: unknown): unknown {
  if (!(err instanceof Error) || !('body' in err)) return err;
  const copy = new Error(err.message);
  copy.name = err.name;
  copy.stack = err.stack;
  return copy;
}
