/**
 * A query as each engine runs it, written once where the engines agree.
 *
 * - `both(text)`: one text, `?` placeholders; SQLite runs it as written, PostgreSQL gets `$1, $2, …` in the order the
 *   `?` stand (so the parameter list is the same on both engines).
 * - `variant(difference, { sqlite, postgres })`: where the engines differ, both texts, each in its own engine's
 *   placeholders (`?` / `$n`, which PostgreSQL may reuse), and the `difference` that makes the variant necessary.
 *   The names are the kinds listed in `EngineDifference`; docs/storage.md lists them too.
 *
 * The texts are built once, at module load, so SQLite's statement cache and PostgreSQL's named prepared statements
 * (both keyed by the text) see one stable text per query.
 */
export interface EngineSql {
  readonly sqlite: string;
  readonly postgres: string;
}

/** Why a query needs a variant per engine. */
export type EngineDifference =
  /** PostgreSQL returns the written row (or its count) from the same statement; SQLite reads it after, or counts changes. */
  | 'RETURNING'
  /** PostgreSQL calls a plpgsql function of its migrations (one round trip, a row lock); SQLite does the steps itself. */
  | 'plpgsql'
  /** PostgreSQL takes a row lock (FOR UPDATE / FOR NO KEY UPDATE); SQLite's transaction already holds the write lock. */
  | 'row lock'
  /** JSON functions: json_extract / json_each on SQLite, ->> / jsonb_array_elements_text / jsonb_to_recordset on PostgreSQL. */
  | 'json'
  /**
   * Booleans: 0/1 on SQLite, true/false where the PostgreSQL column is BOOLEAN (reply_leases.stop_requested); with
   * them, a parameter's type PostgreSQL cannot infer is stated ($2::text IS NULL).
   */
  | 'boolean';

export interface EngineVariant extends EngineSql {
  readonly difference: EngineDifference;
}

/** One text for both engines (see the module comment). */
export function both(text: string): EngineSql {
  return { sqlite: text, postgres: numbered(text) };
}

/** A query whose text differs per engine, and why. */
export function variant(difference: EngineDifference, texts: EngineSql): EngineVariant {
  return { difference, sqlite: texts.sqlite, postgres: texts.postgres };
}

/**
 * `?` → `$1, $2, …` in the order they stand, outside quoted strings and identifiers (a `?` there is text, not a
 * placeholder). Used at load time for `both` and per call for the few queries built from a request (filters).
 */
export function numbered(text: string): string {
  let n = 0;
  let out = '';
  let quote: "'" | '"' | null = null;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else if (ch === '?') {
      out += `$${++n}`;
    } else {
      out += ch;
    }
  }
  return out;
}

/** A statement one engine runs where the other does the same step its own way (named by `difference`). */
export function postgresOnly(difference: EngineDifference, postgres: string): { readonly difference: EngineDifference; readonly postgres: string } {
  return { difference, postgres };
}

export function sqliteOnly(difference: EngineDifference, sqlite: string): { readonly difference: EngineDifference; readonly sqlite: string } {
  return { difference, sqlite };
}
