/**
 * Parsing a YAML definition file (study, survey, rubric) and validating it with a zod schema, so
 * that every problem can name its line: YAML syntax errors with the parser's line, schema issues
 * with the line of the offending node (or of its nearest existing ancestor).
 */
import { isNode, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';

export interface YamlProblem {
  kind: 'syntax' | 'schema';
  /** 1-based line, null when it cannot be placed. */
  line: number | null;
  /** Path of the offending field; [] for a syntax error or the document as a whole. */
  path: readonly PropertyKey[];
  /** For syntax errors "YAML syntax: <first line of the parser's message>". */
  message: string;
}

export type YamlValidation<T> =
  | { ok: true; data: T; lineOf: (path: readonly PropertyKey[]) => number | null }
  | { ok: false; problems: YamlProblem[] };

/** Line of the node at `path`, or of its nearest existing ancestor. */
function lineOf(doc: Document, lines: LineCounter, path: readonly PropertyKey[]): number | null {
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n) as unknown[], true);
    if (isNode(node) && node.range) return lines.linePos(node.range[0]).line;
  }
  return null;
}

/**
 * Cap on alias expansion (yaml's `maxAliasCount`): a definition file needs a few anchors at most, while a
 * file whose aliases nest would expand exponentially ("billion laughs") and exhaust memory at start-up.
 */
export const MAX_ALIAS_COUNT = 100;

/** Parses `text` (duplicate keys are errors) and validates it with `schema`. */
export function validateYaml<T>(text: string, schema: z.ZodType<T>): YamlValidation<T> {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      problems: doc.errors.map((e) => ({ kind: 'syntax', line: lines.linePos(e.pos[0]).line, path: [], message: `YAML syntax: ${e.message.split('\n')[0]}` })),
    };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    // yaml throws a ReferenceError when expanding aliases would exceed the cap (a "billion laughs" file).
    if (err instanceof ReferenceError && /alias/i.test(err.message)) return { ok: false, problems: [{ kind: 'syntax', line: null, path: [], message: 'too many aliases' }] };
    throw err;
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    return { ok: false, problems: result.error.issues.map((issue) => ({ kind: 'schema', line: lineOf(doc, lines, issue.path), path: issue.path, message: issue.message })) };
  }
  return { ok: true, data: result.data, lineOf: (path) => lineOf(doc, lines, path) };
}
