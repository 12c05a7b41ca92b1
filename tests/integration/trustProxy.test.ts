/**
 * TRUST_PROXY / the trustProxy option: validated (a bad value stops start-up with a clear message) and
 * really passed to express, observed through the per-IP join rate limit over real HTTP.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTandem } from '../../wiring/startTandem';
import { createLogger } from '../../lib/logger';
import { trustProxyFromEnv } from '../../server/trustProxy';
import { postJson, ROOT, startTestServer, type TestServer } from '../support/integrationHarness';
import { nodeArgsFor } from '../support/testEntries';

describe('TRUST_PROXY parsing', () => {
  it('maps the documented forms to express values; unset or blank means loopback', () => {
    expect(trustProxyFromEnv(undefined)).toBe('loopback');
    expect(trustProxyFromEnv('  ')).toBe('loopback');
    expect(trustProxyFromEnv('loopback')).toBe('loopback');
    expect(trustProxyFromEnv('1')).toBe(1); // a hop count, not the IP "1"
    expect(trustProxyFromEnv('true')).toBe(true);
    expect(trustProxyFromEnv('false')).toBe(false);
    expect(trustProxyFromEnv('10.0.0.0/8')).toBe('10.0.0.0/8');
    expect(trustProxyFromEnv('loopback, 192.168.0.0/255.255.0.0, fd00::/8')).toBe('loopback,192.168.0.0/255.255.0.0,fd00::/8');
  });

  it.each([
    ['yes', /"yes" is not loopback/],
    ['10.0.0.0/33', /prefix length must be 0–32/],
    ['10.0.0.0/255.0.255.0', /not a prefix length or a netmask/],
    ['loopback,,10.0.0.1', /empty entry/],
    ['1000', /at most 100/],
    ['300.1.1.1', /"300\.1\.1\.1" is not/],
  ])('refuses %s with a message naming TRUST_PROXY and the problem', (value, problem) => {
    expect(() => trustProxyFromEnv(value)).toThrow(/^TRUST_PROXY=/);
    expect(() => trustProxyFromEnv(value)).toThrow(problem);
  });
});

describe('trust proxy on a running server', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  /** Two joins from "different clients" behind a proxy at 127.0.0.1; limit 1 per IP per minute. */
  async function joinTwiceViaProxy(trustProxy?: string): Promise<[number, number]> {
    t = await startTestServer({ joinRateLimitPerMinute: 1, ...(trustProxy !== undefined ? { trustProxy } : {}) });
    const a = await postJson(`${t.server.url}/api/join`, { studyId: 'travel-planning', params: { PROLIFIC_PID: 'tp-a' } }, { 'x-forwarded-for': '203.0.113.1' });
    const b = await postJson(`${t.server.url}/api/join`, { studyId: 'travel-planning', params: { PROLIFIC_PID: 'tp-b' } }, { 'x-forwarded-for': '203.0.113.2' });
    return [a.status, b.status];
  }

  it('default (loopback): X-Forwarded-For from a local proxy is believed, so two clients are limited separately', async () => {
    expect(await joinTwiceViaProxy()).toEqual([200, 200]);
  });

  it('a subnet that excludes the proxy: X-Forwarded-For is ignored, both requests count against the proxy IP', async () => {
    expect(await joinTwiceViaProxy('10.0.0.0/8')).toEqual([200, 429]);
  });

  it('startServer refuses a bad value before opening anything', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-trust-'));
    try {
      const attempt = startTandem({ dataDir: path.join(dir, 'data'), port: 0, trustProxy: 'everyone', logger: createLogger('silent') });
      await expect(attempt).rejects.toThrow(/invalid trustProxy option "everyone"/);
      expect(fs.existsSync(path.join(dir, 'data'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('npm start (wiring/main.ts) exits 1 with a clear message on a bad TRUST_PROXY', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-trust-main-'));
    try {
      const child = spawn(process.execPath, nodeArgsFor(path.join(ROOT, 'wiring', 'main.ts')), {
        cwd: ROOT,
        env: { ...process.env, TRUST_PROXY: '10.0.0.0/99', PORT: '0', HOST: '127.0.0.1', DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'silent', OPENAI_API_KEY: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      let stdout = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(1);
      expect(stderr).toMatch(/TRUST_PROXY="10\.0\.0\.0\/99" is invalid: "10\.0\.0\.0\/99": prefix length must be 0–32/);
      expect(stdout).not.toMatch(/Tandem is running/);
      expect(fs.existsSync(path.join(dir, 'data'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
