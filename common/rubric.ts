/**
 * Judge rubrics: the declarative files in rubrics/<id>.yaml, their zod schema and a validating parser.
 *
 * This module stays browser-safe (zod + yaml only) so the admin client can show rubrics. Reading files
 * from disk and the sha256 version hash live in lib/studyFiles/rubricFiles.ts.
 */
import { z } from 'zod';
import { validateYaml } from './yamlSource';

/** Inputs a rubric may show the judge. */
export const RubricInput = z.enum(['task_request', 'artifact', 'execution_excerpts']);
export type RubricInput = z.infer<typeof RubricInput>;

export const RubricLevel = z
  .object({
    score: z.number().int().min(1).max(5),
    label: z.string().min(1),
    criteria: z.array(z.string().min(1)).min(1),
  })
  .strict();
export type RubricLevel = z.infer<typeof RubricLevel>;

export const Rubric = z
  .object({
    id: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'must be lowercase kebab-case'),
    title: z.string().min(1),
    /** Human-managed version label; the content hash is the authoritative version. */
    version: z.string().regex(/^\d+(\.\d+){0,2}$/, 'must look like 1, 1.2 or 1.2.3'),
    /** Dataset `task` values this rubric judges by default (e.g. travel_planning). */
    taskKinds: z.array(z.string().min(1)).min(1),
    /** What the participant was asked to produce, in a sentence or two; the judge sees it as context. */
    taskSummary: z.string().min(1),
    /** Which inputs the judge sees. The artifact is always among them. */
    inputs: z
      .array(RubricInput)
      .min(1)
      .refine((inputs) => inputs.includes('artifact'), 'must include "artifact"')
      .refine((inputs) => new Set(inputs).size === inputs.length, 'must not repeat an input'),
    /** Artifact fields (as submitted) the judge sees; empty = all fields. */
    artifactFields: z.array(z.string().min(1)).default([]),
    /** Aspects the judge should weigh across all levels. */
    focus: z.array(z.string().min(1)).min(1),
    levels: z
      .array(RubricLevel)
      .length(5, 'must have exactly five levels')
      .refine(
        (levels) => levels.map((l) => l.score).join(',') === '1,2,3,4,5',
        'levels must be listed in order with scores 1, 2, 3, 4, 5',
      ),
  })
  .strict();
export type Rubric = z.infer<typeof Rubric>;

/** A rubric file that failed validation; the message names the file and the offending field. */
export class RubricValidationError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: invalid rubric\n  ${problems.join('\n  ')}`);
    this.name = 'RubricValidationError';
  }
}

function fieldPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`))
    .join('');
}

/**
 * Parses and validates rubric YAML text. Errors name `file`, the line and the field. When
 * `expectedId` is given (the file's base name) the rubric id must match it.
 */
export function parseRubric(text: string, file: string, expectedId?: string): Rubric {
  const result = validateYaml(text, Rubric);
  if (!result.ok) {
    throw new RubricValidationError(
      file,
      result.problems.map((p) =>
        p.kind === 'syntax' ? `line ${p.line}: ${p.message}` : `${p.line !== null ? `line ${p.line}: ` : ''}${fieldPath(p.path)}: ${p.message}`,
      ),
    );
  }
  if (expectedId !== undefined && result.data.id !== expectedId) {
    throw new RubricValidationError(file, [`line ${result.lineOf(['id']) ?? '?'}: id: "${result.data.id}" does not match the file name "${expectedId}"`]);
  }
  return result.data;
}

/** JSON with object keys sorted at every level: the canonical form the rubric hash is taken over. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
