import { ErrorCode } from '../../../common/envelope';
import { RequestError } from '../../socket/errors';

/**
 * POSTs a body with XMLHttpRequest (fetch has no upload progress) and resolves the parsed JSON reply.
 * Rejects with a RequestError carrying the server's error code when the reply is not 2xx.
 */
export function uploadWithProgress(
  url: string,
  body: FormData | Blob,
  headers: Record<string, string>,
  onProgress: (fraction: number) => void,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    };
    xhr.onerror = () => reject(new RequestError('disconnected', 'The upload failed: the connection was lost. Please try again.'));
    xhr.onload = () => {
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(xhr.responseText);
      } catch {
        /* non-JSON reply, handled below */
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve(parsed);
      } else {
        reject(new RequestError(errorCodeOf(parsed, xhr.status), errorMessageOf(parsed) ?? `The upload was refused (HTTP ${xhr.status}).`));
      }
    };
    xhr.send(body);
  });
}

/** Reads `{ error: { message } }` or `{ error: "…" }` from an error reply. */
export function errorMessageOf(body: unknown): string | undefined {
  if (!body || typeof body !== 'object' || !('error' in body)) return undefined;
  const error = (body as { error: unknown }).error;
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object' && 'message' in error && typeof error.message === 'string') return error.message;
  return undefined;
}

/** The envelope's error code, or one inferred from the HTTP status when the reply has none (e.g. a proxy's 413). */
function errorCodeOf(body: unknown, status: number): ErrorCode {
  const code = body && typeof body === 'object' && 'error' in body ? ErrorCode.safeParse((body as { error: { code?: unknown } }).error?.code) : null;
  if (code?.success) return code.data;
  if (status === 413) return 'too_large';
  if (status === 429) return 'rate_limited';
  if (status === 401) return 'unauthorized';
  return 'internal';
}
