/**
 * The TRUST_PROXY setting: which hops in front of the server may set X-Forwarded-For, i.e. where
 * `req.ip` (rate limits, logs) comes from. Passed to express as its 'trust proxy' value.
 *
 * Accepted (as express documents it): "true" / "false"; a number of hops ("1"); or a comma-separated
 * list of the names loopback, linklocal, uniquelocal and IP addresses or subnets ("10.0.0.0/8",
 * "192.168.0.0/255.255.0.0", "::1"). A plain string is validated here because express would read "1"
 * as an IP address and fail only when it compiles the list.
 */
import net from 'node:net';
import { z } from 'zod';

export type TrustProxy = boolean | number | string;

export const DEFAULT_TRUST_PROXY: TrustProxy = 'loopback';

const NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** Why one list entry is not a name, an IP or a subnet; null when it is fine. */
function entryProblem(entry: string): string | null {
  if (NAMES.has(entry)) return null;
  const [address = '', range, extra] = entry.split('/');
  const family = net.isIP(address);
  if (family === 0 || extra !== undefined)
    return `"${entry}" is not loopback, linklocal, uniquelocal, an IP address or a subnet (e.g. 10.0.0.0/8)`;
  if (range === undefined) return null;
  const bits = family === 4 ? 32 : 128;
  if (/^\d+$/.test(range)) return Number(range) <= bits ? null : `"${entry}": prefix length must be 0–${bits}`;
  if (family === 4 && net.isIPv4(range) && isContiguousMask(range)) return null;
  return `"${entry}": "${range}" is not a prefix length${family === 4 ? ' or a netmask' : ''}`;
}

function isContiguousMask(mask: string): boolean {
  const n = mask.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
  const inverted = 0xffffffff - n; // host bits: must be 0…01…1
  return (inverted & (inverted + 1)) === 0;
}

/** TRUST_PROXY as text → the value for express's 'trust proxy' setting. */
export const TrustProxySetting = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .transform((raw, ctx): TrustProxy => {
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    if (/^\d+$/.test(raw)) {
      const hops = Number(raw);
      if (hops > 100) ctx.addIssue({ code: 'custom', message: `${hops} proxy hops is implausible (at most 100)` });
      return hops;
    }
    const entries = raw.split(',').map((e) => e.trim());
    for (const entry of entries) {
      const problem = entry === '' ? 'empty entry in the list' : entryProblem(entry);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }
    return entries.join(',');
  });

/** Parses TRUST_PROXY (unset or blank → loopback); throws an Error naming the variable and the problem. */
export function trustProxyFromEnv(value: string | undefined): TrustProxy {
  if (value === undefined || value.trim() === '') return DEFAULT_TRUST_PROXY;
  const parsed = TrustProxySetting.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => i.message).join('; ');
  throw new Error(`TRUST_PROXY="${value}" is invalid: ${problems}. Use true/false, a hop count such as 1, or loopback, linklocal, uniquelocal, IPs and subnets separated by commas.`);
}
