/**
 * One rule for U+0000 (NUL) at every boundary where text enters (socket events, HTTP bodies and queries, a
 * model's streamed reply): it is dropped. PostgreSQL cannot store NUL in text or jsonb, SQLite can: dropping
 * it where text comes in keeps both engines alike, and a participant whose text holds one (a paste from a
 * binary file) is never refused for it. The dataset's codebook says so (research/exports/codebook.ts).
 */
const NUL = /\u0000/g;

/** The string without NUL characters. */
export const dropNul = (text: string): string => (text.includes('\u0000') ? text.replace(NUL, '') : text);

/** A JSON-like value with NUL dropped from every string in it, keys included (objects copied only when changed). */
export function dropNulDeep<T>(value: T): T {
  if (typeof value === 'string') return dropNul(value) as T;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const w = dropNulDeep(v);
      if (w !== v) changed = true;
      return w;
    });
    return (changed ? out : value) as T;
  }
  if (value !== null && typeof value === 'object' && isPlainObject(value)) {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const key = dropNul(k);
      const w = dropNulDeep(v);
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
