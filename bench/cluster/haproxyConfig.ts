import { readFileSync } from 'node:fs';

/**
 * Renders deploy/haproxy.cfg (the production file, the one template) for a loopback cluster: lines tagged
 * `# @system` are dropped (chroot, user, daemon, syslog: the harness runs haproxy in the foreground as its
 * child), `# @bind` and `# @stats` get loopback ports, and the `# @node` server line is repeated once per node
 * (its untagged siblings, the example nodes 2 and 3, are dropped). Everything else — timeouts, cookie,
 * health check, redispatch — is used as written, so the harness exercises the deployed configuration.
 */
export const DEPLOY_HAPROXY_CFG = new URL('../../deploy/haproxy.cfg', import.meta.url);

export interface HaproxyLayout {
  /** The public (frontend) port, on 127.0.0.1. */
  port: number;
  statsPort: number;
  nodes: ReadonlyArray<{ name: string; port: number }>;
  /** Replaces the health-check request line's path (default: the template's /healthz). */
  checkPath?: string;
}

export function renderHaproxyConfig(layout: HaproxyLayout, template = readFileSync(DEPLOY_HAPROXY_CFG, 'utf8')): string {
  const lines = template.split('\n');
  // A tag is a trailing comment on a directive (comment-only lines that mention a tag do not count).
  const hasTag = (line: string, tag: string) => new RegExp(`^\\s*[^#\\s].*#\\s*@${tag}\\b`).test(line);
  const tagged = (tag: string) => lines.filter((l) => hasTag(l, tag));
  for (const tag of ['bind', 'stats', 'node']) {
    if (tagged(tag).length !== 1) throw new Error(`deploy/haproxy.cfg: expected exactly one line tagged "# @${tag}", found ${tagged(tag).length}`);
  }
  const nodeLine = tagged('node')[0]!;
  const serverMatch = /^(\s*)server\s+(\S+)\s+(\S+)\s+(.*?)\s*#\s*@node\s*$/.exec(nodeLine);
  if (!serverMatch) throw new Error(`deploy/haproxy.cfg: the "# @node" line must read "server <name> <address> <options> # @node", got: ${nodeLine.trim()}`);
  const [, indent, templateName, , options] = serverMatch as unknown as [string, string, string, string, string];
  const out: string[] = [];
  for (const line of lines) {
    if (hasTag(line, 'system')) continue;
    if (/^\s*server\s/.test(line) && !hasTag(line, 'node')) continue; // the example siblings of the @node line
    if (hasTag(line, 'bind')) out.push(`    bind 127.0.0.1:${layout.port}`);
    else if (hasTag(line, 'stats')) out.push(`    bind 127.0.0.1:${layout.statsPort}`);
    else if (hasTag(line, 'node')) {
      for (const node of layout.nodes) {
        out.push(`${indent}server ${node.name} 127.0.0.1:${node.port} ${options.replaceAll(`cookie ${templateName}`, `cookie ${node.name}`)}`);
      }
    } else if (layout.checkPath && /^\s*option\s+httpchk\s/.test(line)) out.push(line.replace(/\/\S*/, layout.checkPath));
    else out.push(line);
  }
  return out.join('\n');
}
