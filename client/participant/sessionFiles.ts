import { useEffect, useState } from 'react';
import { ErrorInfo } from '../../common/envelope';
import { RequestError } from '../socket/errors';

/**
 * Session files (uploaded images, task materials) are fetched with the participant token in the
 * `Authorization` header and shown or saved through a blob: URL. The token never goes into a URL,
 * where it would end up in browser history and proxy logs (the server no longer accepts `?token=`).
 */

/** Fetches one session file (e.g. `/api/session/uploads/<id>`) as a Blob, or throws a RequestError fit to show. */
export async function fetchSessionFile(url: string, token: string, fetchImpl: typeof fetch = fetch): Promise<Blob> {
  let response: Response;
  try {
    response = await fetchImpl(url, { headers: { authorization: `Bearer ${token}` }, cache: 'no-store' });
  } catch {
    throw new RequestError('disconnected', 'Could not reach the study server. Please check your connection and try again.');
  }
  if (response.ok) return response.blob();
  // Error replies are envelopes ({ok:false,error}); anything else is reported by its HTTP status.
  let info: ErrorInfo | null = null;
  try {
    const parsed = ErrorInfo.safeParse(((await response.json()) as { error?: unknown }).error);
    if (parsed.success) info = parsed.data;
  } catch {
    /* not JSON */
  }
  throw info ? new RequestError(info.code, info.message) : new RequestError('internal', `The study server answered with HTTP ${response.status}.`);
}

/** How a downloaded blob reaches the participant: the browser's temporary <a download> by default. */
export type SaveBlobUrl = (objectUrl: string, fileName: string) => void;

function saveWithTemporaryLink(objectUrl: string, fileName: string): void {
  const link = document.createElement('a');
  link.href = objectUrl;
  link.download = fileName;
  link.rel = 'noopener';
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
}

/**
 * Downloads a session file under `fileName`. The object URL is revoked once the browser has had time
 * to start the download (revoking in the same tick as the click can cancel it in some browsers).
 */
export async function downloadSessionFile(
  url: string,
  token: string,
  fileName: string,
  options: { fetchImpl?: typeof fetch; save?: SaveBlobUrl; revokeAfterMs?: number } = {},
): Promise<void> {
  const blob = await fetchSessionFile(url, token, options.fetchImpl);
  const objectUrl = URL.createObjectURL(blob);
  try {
    (options.save ?? saveWithTemporaryLink)(objectUrl, fileName);
  } finally {
    setTimeout(() => URL.revokeObjectURL(objectUrl), options.revokeAfterMs ?? 10_000);
  }
}

/**
 * A blob: URL for showing a session file in an <img>, loaded with the token header. Revoked when the
 * file changes or the component unmounts. `url` null → nothing.
 */
export function useSessionFileUrl(url: string | null, token: string): { src: string | null; error: string | null } {
  const [loaded, setLoaded] = useState<{ url: string; src: string | null; error: string | null } | null>(null);
  useEffect(() => {
    if (url === null) return;
    let objectUrl: string | null = null;
    let cancelled = false;
    fetchSessionFile(url, token)
      .then((blob) => {
        if (cancelled) return;
        objectUrl = URL.createObjectURL(blob);
        setLoaded({ url, src: objectUrl, error: null });
      })
      .catch((error: unknown) => {
        if (!cancelled) setLoaded({ url, src: null, error: error instanceof Error ? error.message : String(error) });
      });
    return () => {
      cancelled = true;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [url, token]);
  // A result for a previous file is never shown for the current one.
  if (url === null || loaded?.url !== url) return { src: null, error: null };
  return { src: loaded.src, error: loaded.error };
}
