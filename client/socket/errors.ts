import type { ErrorCode } from '../../common/envelope';

/** Codes the server sends plus two that only the client produces. */
export type ClientErrorCode = ErrorCode | 'disconnected' | 'timeout';

/** A failed request: the server's `{ok:false,error}` or a transport problem, with a message fit to show. */
export class RequestError extends Error {
  constructor(
    readonly code: ClientErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'RequestError';
  }
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
