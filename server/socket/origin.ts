import type { IncomingMessage } from 'node:http';

/**
 * socket.io handshake guard against cross-site WebSocket hijacking. WebSockets are not covered by CORS,
 * and the researcher's /admin namespace authenticates by cookie: a page on a sibling subdomain is
 * "same-site", so even a SameSite=Strict cookie rides along. A browser always sends Origin, so a
 * handshake is accepted only without one (non-browser clients) or when it names this very host
 * (Host, or X-Forwarded-Host behind a proxy).
 */
export function handshakeOriginAllowed(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  let originHost: string;
  try {
    originHost = new URL(origin).host.toLowerCase();
  } catch {
    return false; // "null" (sandboxed frames, file:) or garbage
  }
  const forwarded = req.headers['x-forwarded-host'];
  const hosts = [req.headers.host, ...(Array.isArray(forwarded) ? forwarded : (forwarded ?? '').split(','))]
    .map((h) => (h ?? '').trim().toLowerCase())
    .filter((h) => h.length > 0);
  return hosts.includes(originHost);
}
