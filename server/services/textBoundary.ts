/**
 * One rule for text where it enters the server (socket events, HTTP bodies and queries, a model's streamed reply):
 *   - U+0000 (NUL) is dropped. PostgreSQL cannot store NUL in text or jsonb, SQLite can: dropping it where text comes
 *     in keeps both engines alike, and a participant whose text holds one (a paste from a binary file) is never
 *     refused for it.
 *   - A lone surrogate (half of a UTF-16 pair, e.g. from a broken paste) becomes U+FFFD. UTF-8 cannot hold one: a text
 *     column would store U+FFFD anyway while the same text inside a JSON payload kept a `\ud83d` escape, which
 *     PostgreSQL's jsonb refuses.
 * The dataset's codebook says so (research/exports/codebook.ts).
 */
const NUL = /\u0000/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The string without NUL characters. */
export const dropNul = (text: string): string => (text.includes('\u0000') ? text.replace(NUL, '') : text);

/** The string with U+FFFD for each lone surrogate (the same length: one UTF-16 unit for one). */
export const wellFormed = (text: string): string =>
  (text as string & { isWellFormed(): boolean }).isWellFormed() ? text : text.replace(LONE_SURROGATE, '\uFFFD');

/** The string without NUL characters and with U+FFFD for each lone surrogate. */
export const cleanText = (text: string): string => wellFormed(dropNul(text));

/** A JSON-like value with every string in it cleaned (cleanText), keys included (objects copied only when changed). */
export function cleanTextDeep<T>(value: T): T {
  if (typeof value === 'string') return cleanText(value) as T;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const w = cleanTextDeep(v);
      if (w !== v) changed = true;
      return w;
    });
    return (changed ? out : value) as T;
  }
  if (value !== null && typeof value === 'object' && isPlainObject(value)) {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const key = cleanText(k);
      const w = cleanTextDeep(v);
      if (key !== k || w !== v) changed = true;
      // An own property: a "__proto__" key stays data, never a prototype.
      Object.defineProperty(out, key, { value: w, enumerable: true, writable: true, configurable: true });
    }
    return (changed ? out : value) as T;
  }
  return value;
}

/** A JSON object or a parsed query (which has no prototype); never a Buffer, a Date or a class instance. */
function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
