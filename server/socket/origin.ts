import type { IncomingMessage } from 'node:http';

/** express's compiled 'trust proxy' setting ('trust proxy fn'): is the peer at `address`, `hop` hops away, a trusted proxy? */
export type TrustProxyFn = (address: string, hop: number) => boolean;

/**
 * socket.io handshake guard against cross-site WebSocket hijacking. WebSockets are not covered by CORS,
 * and the researcher's /admin namespace authenticates by cookie: a page on a sibling subdomain is
 * "same-site", so even a SameSite=Strict cookie rides along. A browser always sends Origin, so a
 * handshake is accepted only without one (non-browser clients) or when it names this very host: Host,
 * or X-Forwarded-Host when the peer is a trusted proxy (TRUST_PROXY, the same rule express applies to
 * req.host). From any other peer X-Forwarded-Host is ignored: anyone can send that header.
 */
export function handshakeOriginAllowed(req: IncomingMessage, trustProxy: TrustProxyFn = () => false): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  let originHost: string;
  try {
    originHost = new URL(origin).host.toLowerCase();
  } catch {
    return false; // "null" (sandboxed frames, file:) or garbage
  }
  const peer = req.socket.remoteAddress;
  const forwarded = peer !== undefined && trustProxy(peer, 0) ? req.headers['x-forwarded-host'] : undefined;
  const hosts = [req.headers.host, ...(Array.isArray(forwarded) ? forwarded : (forwarded ?? '').split(','))]
    .map((h) => (h ?? '').trim().toLowerCase())
    .filter((h) => h.length > 0);
  return hosts.includes(originHost);
}
