import { isIPv4, isIPv6 } from 'node:net';
import { BARE_PROFILE_RE, urlIsPersonal } from './personalUrls';

/**
 * Redaction of personal data in free text before it enters a science file.
 *
 * Each hit becomes `[REDACTED:<kind>]` and is counted per kind; the counts go into manifest.json.
 * Order matters: URLs first (an email or id inside a URL is one URL hit), then exact identity
 * strings (platform ids, URL parameters recorded at session start), then emails, IPs, phones.
 * A URL is personal when it carries a personal parameter or credentials, or when it is a profile page
 * (linkedin.com/in/…, facebook.com/…, github.com/<user>, https://host/@user, https://host/~user, …).
 * The rules are deliberately conservative: a false positive costs a few characters of text,
 * a false negative leaks a participant.
 */

export const REDACTION_KINDS = ['url', 'identity', 'email', 'ip', 'phone'] as const;
export type RedactionKind = (typeof REDACTION_KINDS)[number];
export type RedactionCounts = Record<RedactionKind, number>;

export function emptyRedactionCounts(): RedactionCounts {
  return { url: 0, identity: 0, email: 0, ip: 0, phone: 0 };
}

export function addRedactionCounts(into: RedactionCounts, from: RedactionCounts): void {
  for (const kind of REDACTION_KINDS) into[kind] += from[kind];
}

const marker = (kind: RedactionKind) => `[REDACTED:${kind}]`;

/** Identity strings shorter than this are not matched: "1" or "ab" would shred ordinary text. */
export const MIN_IDENTITY_LENGTH = 4;

const URL_RE = /\b(?:(?:https?|ftps?|wss?):\/\/|www\.)[^\s<>"'`]+/gi;
/** A link typed without scheme or www ("example.org/reset?token=…"): only looked at when it has a query or fragment. */
const BARE_URL_RE = /(?<![\w@.\/:-])(?:[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?\.)+[a-z]{2,24}(?::\d{1,5})?\/[^\s<>"'`?#]*[?#][^\s<>"'`]+/gi;
// The lookbehind starts a match only at the beginning of a run of local-part characters: without it a
// long run with no "@" is rescanned from every position (quadratic: 100k characters took ~12 s).
const EMAIL_RE = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
const IPV4_RE = /(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w]|\.\d)/g;
const IPV6_CANDIDATE_RE = /(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{0,4}|(?:\d{1,3}\.){3}\d{1,3})(?![\w:])/g;
const PHONE_CANDIDATE_RE = /(?<![\w+.\-/])(?:\+ ?\d{1,3}[ .-]?)?(?:\(\d{1,5}\)[ .-]?)?\d{1,14}(?:[ .-]\d{1,8}){0,5}(?![\w]|[.-]\d)/g;
const DATE_LIKE = /^(\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4})$/;
const US_SPACED = /^\d{3} \d{3} \d{4}$/;

function looksLikePhone(candidate: string): boolean {
  const digits = candidate.replace(/\D/g, '').length;
  if (digits < 7 || digits > 15) return false;
  if (DATE_LIKE.test(candidate)) return false;
  const international = candidate.startsWith('+');
  const hasParens = candidate.includes('(');
  if (international || hasParens) return true;
  const separators = candidate.match(/[ .-]/g) ?? [];
  if (separators.length === 0) return false; // a bare number is data, not a phone (see README note)
  if (digits < 9) return false;
  const onlySpaces = separators.every((s) => s === ' ');
  // "1000 2000 3000" is a list of numbers; accept spaced forms only with a trunk prefix or US grouping.
  if (onlySpaces) return candidate.startsWith('0') || US_SPACED.test(candidate);
  // Decimal-looking "3.14159 2.71828" etc.: dots alone need phone grouping like 555.123.4567.
  if (separators.every((s) => s === '.')) return /^\d{2,4}(\.\d{2,4}){2,3}$/.test(candidate);
  return true;
}

/**
 * Lower case that keeps every index in place: the few characters whose lower case is longer (Turkish
 * "İ" → "i̇") stay as they are. Both identities and text go through it, so matching stays consistent,
 * and a text with such a character needs no slow path (a per-identity rescan cost ~1 s per message
 * with 100,000 identities — hours for a Turkish-speaking study).
 */
function lowerSameLength(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  let out = '';
  for (const ch of text) {
    const l = ch.toLowerCase();
    out += l.length === ch.length ? l : ch;
  }
  return out;
}

/**
 * Case-insensitive exact-substring matcher over many identity strings. Values are grouped by their first
 * MIN_IDENTITY_LENGTH characters and, within a group, by length into Sets, so at each text position the
 * cost is one Map lookup plus one Set lookup per distinct length — independent of how many identities
 * exist (100,000 platform ids sharing a prefix such as "A1" or "pid" stay cheap).
 */
export class IdentityMatcher {
  /** prefix → lengths (longest first) and, per length, the set of values. */
  private readonly byPrefix = new Map<string, { lengths: number[]; values: Map<number, Set<string>> }>();
  private count = 0;

  add(value: string): void {
    const v = lowerSameLength(value.trim());
    if (v.length < MIN_IDENTITY_LENGTH) return;
    const key = v.slice(0, MIN_IDENTITY_LENGTH);
    let group = this.byPrefix.get(key);
    if (!group) {
      group = { lengths: [], values: new Map() };
      this.byPrefix.set(key, group);
    }
    let set = group.values.get(v.length);
    if (!set) {
      set = new Set();
      group.values.set(v.length, set);
      group.lengths.push(v.length);
      group.lengths.sort((a, b) => b - a); // longest match wins
    }
    if (set.has(v)) return;
    set.add(v);
    this.count++;
  }

  get size(): number {
    return this.count;
  }

  private matchAt(lower: string, i: number): number {
    const group = this.byPrefix.get(lower.slice(i, i + MIN_IDENTITY_LENGTH));
    if (!group) return 0;
    for (const length of group.lengths) {
      if (i + length <= lower.length && group.values.get(length)!.has(lower.slice(i, i + length))) return length;
    }
    return 0;
  }

  /**
   * Replaces every occurrence (of this matcher's values or `also`'s, the longest at each position);
   * returns the new text and how many were replaced.
   */
  replace(text: string, replacement: string, also?: IdentityMatcher): { text: string; hits: number } {
    const extra = also && also.count > 0 ? also : undefined;
    if ((this.count === 0 && !extra) || text.length < MIN_IDENTITY_LENGTH) return { text, hits: 0 };
    const lower = lowerSameLength(text);
    let out = '';
    let hits = 0;
    let last = 0;
    for (let i = 0; i + MIN_IDENTITY_LENGTH <= lower.length; ) {
      const length = extra ? Math.max(this.matchAt(lower, i), extra.matchAt(lower, i)) : this.matchAt(lower, i);
      if (length > 0) {
        out += text.slice(last, i) + replacement;
        i += length;
        last = i;
        hits++;
      } else i++;
    }
    return hits === 0 ? { text, hits } : { text: out + text.slice(last), hits };
  }
}

export interface Redactor {
  /** Redacts one string, adding to `counts`. */
  redact(text: string): string;
  /** Redacts every string inside a JSON value (keys kept, numbers/booleans untouched). */
  redactJson(value: unknown): unknown;
  /**
   * A redactor for one session's text: also redacts that session's own identity strings (`own`, e.g. its
   * URL parameter values), adding to the same counts.
   */
  forSession(own: IdentityMatcher): Redactor;
  readonly counts: RedactionCounts;
}

export function createRedactor(identities: IdentityMatcher = new IdentityMatcher(), shared?: { counts: RedactionCounts; own: IdentityMatcher }): Redactor {
  const counts = shared?.counts ?? emptyRedactionCounts();
  const own = shared?.own;

  function replaceAll(text: string, re: RegExp, kind: RedactionKind, accept: (m: string) => boolean): string {
    return text.replace(re, (m) => {
      if (!accept(m)) return m;
      counts[kind]++;
      return marker(kind);
    });
  }

  function redact(text: string): string {
    if (text.length === 0) return text;
    const redactUrl = (m: string) => {
      if (!urlIsPersonal(m)) return m;
      counts.url++;
      // keep sentence punctuation that the URL pattern swallowed
      const tail = /[.,;:!?)\]]+$/.exec(m)?.[0] ?? '';
      return marker('url') + tail;
    };
    let out = text.replace(URL_RE, redactUrl).replace(BARE_URL_RE, redactUrl).replace(BARE_PROFILE_RE, redactUrl);
    const ids = identities.replace(out, marker('identity'), own);
    counts.identity += ids.hits;
    out = ids.text;
    out = replaceAll(out, EMAIL_RE, 'email', () => true);
    out = replaceAll(out, IPV4_RE, 'ip', (m) => isIPv4(m));
    out = replaceAll(out, IPV6_CANDIDATE_RE, 'ip', (m) => isIPv6(m) && (m.match(/[0-9A-Fa-f]/g)?.length ?? 0) >= 2);
    out = replaceAll(out, PHONE_CANDIDATE_RE, 'phone', (m) => looksLikePhone(m.trim()));
    return out;
  }

  function redactJson(value: unknown): unknown {
    if (typeof value === 'string') return redact(value);
    if (Array.isArray(value)) return value.map(redactJson);
    // fromEntries defines own properties: a "__proto__" key in stored JSON stays data, never a prototype.
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactJson(v)]));
    return value;
  }

  return { redact, redactJson, counts, forSession: (sessionOwn) => createRedactor(identities, { counts, own: sessionOwn }) };
}
