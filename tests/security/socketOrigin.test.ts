/**
 * The socket.io origin check believes X-Forwarded-Host only from a trusted proxy (TRUST_PROXY), like
 * express's req.host: otherwise a page on evil.example whose request carries "X-Forwarded-Host:
 * evil.example" (any client can set that header) would pass the same-host check.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { io as connect } from 'socket.io-client';
import { join, startTestServer, type TestServer } from '../support/integrationHarness';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Opens a participant socket as a page on `origin` would, with extra headers; 'connected' or the refusal. */
function handshake(url: string, token: string, headers: Record<string, string>): Promise<string> {
  const socket = connect(url, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: headers, auth: { token } });
  return new Promise((resolve) => {
    socket.once('connect', () => {
      socket.close();
      resolve('connected');
    });
    socket.once('connect_error', (err) => {
      socket.close();
      resolve(err.message);
    });
  });
}

const EVIL = { origin: 'http://evil.example', 'x-forwarded-host': 'evil.example' };

describe('X-Forwarded-Host in the socket origin check', () => {
  it('is ignored from a peer that is not a trusted proxy (TRUST_PROXY excludes loopback)', async () => {
    t = await startTestServer({ trustProxy: '10.0.0.0/8' });
    const j = await join(t, 'travel-planning', { participant_label: 'origin-untrusted' });
    expect(await handshake(t.server.url, j.token, EVIL)).not.toBe('connected');
    expect(await handshake(t.server.url, j.token, { origin: new URL(t.server.url).origin })).toBe('connected');
  });

  it('is ignored with TRUST_PROXY=false', async () => {
    t = await startTestServer({ trustProxy: false });
    const j = await join(t, 'travel-planning', { participant_label: 'origin-false' });
    expect(await handshake(t.server.url, j.token, EVIL)).not.toBe('connected');
  });

  it('is honoured from a trusted proxy (default loopback: a proxy on this machine names the public host)', async () => {
    t = await startTestServer();
    const j = await join(t, 'travel-planning', { participant_label: 'origin-trusted' });
    expect(await handshake(t.server.url, j.token, { origin: 'https://study.example.org', 'x-forwarded-host': 'study.example.org' })).toBe('connected');
    expect(await handshake(t.server.url, j.token, { origin: 'http://evil.example', 'x-forwarded-host': 'study.example.org' })).not.toBe('connected');
  });
});
