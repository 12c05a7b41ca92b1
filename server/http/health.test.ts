/**
 * GET /healthz answers anyone: without TANDEM_NODE_ID the node's made-up name (host:pid:random) must not show
 * the machine's host name or the process id; a name the operator gave is shown as given.
 */
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../tests/support/integrationHarness';

let unnamed: TestServer;
let named: TestServer;
beforeAll(async () => {
  unnamed = await startTestServer();
  named = await startTestServer({ nodeId: 'tandem-7' });
});
afterAll(async () => {
  await unnamed?.close();
  await named?.close();
});

describe('GET /healthz', () => {
  it('shows neither host name nor PID for a node without TANDEM_NODE_ID', async () => {
    const res = await fetch(`${unnamed.server.url}/healthz`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(os.hostname().slice(0, 40));
    expect(text).not.toContain(String(process.pid));
    const body = JSON.parse(text) as { node: string };
    expect(body.node).toMatch(/^unnamed-[0-9a-f]{6}$/);
    expect(unnamed.server.nodeId.endsWith(body.node.slice('unnamed-'.length))).toBe(true);
  });

  it('shows a given TANDEM_NODE_ID as it is', async () => {
    const body = (await (await fetch(`${named.server.url}/healthz`)).json()) as { node: string };
    expect(body.node).toBe('tandem-7');
  });
});
