import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCommand } from '../../bench/cluster/daemon';
import { DEPLOY_HAPROXY_CFG, renderHaproxyConfig } from '../../bench/cluster/haproxyConfig';

const haproxy = findCommand('haproxy');
if (!haproxy) console.warn('tests/cluster/haproxyConfig.test.ts: haproxy is not installed (apt-get install haproxy); the validity checks skip');

/** `haproxy -c` on a config text: exit status and output. */
function validate(text: string): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tandem-haproxy-test-'));
  try {
    writeFileSync(join(dir, 'haproxy.cfg'), text);
    const r = spawnSync(haproxy!, ['-c', '-f', join(dir, 'haproxy.cfg')], { encoding: 'utf8' });
    return { status: r.status, output: `${r.stdout}${r.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('deploy/haproxy.cfg and its loopback rendering', () => {
  const template = readFileSync(DEPLOY_HAPROXY_CFG, 'utf8');

  it.skipIf(!haproxy)('the deployed file is valid for HAProxy', () => {
    const r = validate(template);
    expect(r.status, r.output).toBe(0);
  });

  it('renders one server line per node with its own cookie, loopback binds, and no system-service lines', () => {
    const text = renderHaproxyConfig({ port: 18080, statsPort: 18404, nodes: [{ name: 'node1', port: 13001 }, { name: 'node2', port: 13002 }, { name: 'node3', port: 13003 }, { name: 'node4', port: 13004 }] });
    const servers = text.split('\n').filter((l) => /^\s*server\s/.test(l)).map((l) => l.trim());
    expect(servers).toEqual([1, 2, 3, 4].map((i) => `server node${i} 127.0.0.1:1300${i} check cookie node${i}`));
    expect(text).toMatch(/^\s*bind 127\.0\.0\.1:18080$/m);
    expect(text).toMatch(/^\s*bind 127\.0\.0\.1:18404$/m);
    for (const gone of ['chroot', 'daemon', 'user haproxy', 'stats socket', 'maxconn 20000', '10.0.0.1']) expect(text).not.toContain(gone);
    // What the harness must exercise as deployed: health check, stickiness, long websockets.
    for (const kept of ['option httpchk GET /healthz', 'cookie TANDEMNODE insert', 'timeout tunnel', 'option  redispatch 1']) expect(text).toContain(kept);
  });

  it.skipIf(!haproxy)('the rendering is valid for HAProxy', () => {
    const r = validate(renderHaproxyConfig({ port: 18080, statsPort: 18404, nodes: [{ name: 'node1', port: 13001 }] }));
    expect(r.status, r.output).toBe(0);
  });

  it('names the tag that is missing or repeated in a broken template', () => {
    expect(() => renderHaproxyConfig({ port: 1, statsPort: 2, nodes: [] }, template.replace(/(check cookie node1)\s+# @node/, '$1'))).toThrow(/exactly one line tagged "# @node", found 0/);
    expect(() => renderHaproxyConfig({ port: 1, statsPort: 2, nodes: [] }, template.replace('check cookie node2', 'check cookie node2 # @node'))).toThrow(/"# @node", found 2/);
  });
});
