import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { LineCounter, parseDocument, isNode, type Document } from 'yaml';
import type { z } from 'zod';
import { Study, type LoadedStudy } from '../../common/study';
import { Survey, type LoadedSurvey } from '../../common/survey';
import { Slug } from '../../common/ids';

/** One problem in one config file, with the line when the YAML parser can place it. */
export interface ConfigProblem {
  file: string;
  line: number | null;
  /** Dotted path of the offending field, e.g. "tasks.0.fields.1.kind"; "" for the file as a whole. */
  field: string;
  message: string;
}

/** Thrown when any study or survey file is invalid; lists every problem found so nothing half-loads. */
export class ConfigError extends Error {
  constructor(readonly problems: ConfigProblem[]) {
    super(
      `Invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n` +
        problems.map((p) => `  ${p.file}${p.line ? `:${p.line}` : ''}: ${p.field ? `${p.field}: ` : ''}${p.message}`).join('\n'),
    );
    this.name = 'ConfigError';
  }
}

/** A validated study with the sha256 of its file and the (absolute) studies directory its material paths are relative to. */
export type StudyDefinition = LoadedStudy & { definitionHash: string; dir: string };

export interface LoadedConfig {
  studies: Map<string, StudyDefinition>;
  surveys: Map<string, LoadedSurvey>;
}

interface ParsedFile<T> {
  id: string;
  value: T;
  hash: string;
}

/** Line of the node at `path` (or of its nearest existing ancestor). */
function lineOf(doc: Document, lines: LineCounter, fieldPath: PropertyKey[]): number | null {
  for (let n = fieldPath.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(fieldPath.slice(0, n) as unknown[], true);
    if (isNode(node) && node.range) return lines.linePos(node.range[0]).line;
  }
  return null;
}

function parseYamlFile<T>(file: string, schema: z.ZodType<T>, problems: ConfigProblem[], display: string): ParsedFile<T> | null {
  const id = path.basename(file).replace(/\.ya?ml$/, '');
  const idCheck = Slug.safeParse(id);
  if (!idCheck.success) {
    problems.push({ file: display, line: null, field: '', message: `file name "${id}" is not a valid id: ${idCheck.error.issues[0]?.message}` });
    return null;
  }
  const text = fs.readFileSync(file, 'utf8');
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    for (const e of doc.errors) {
      problems.push({ file: display, line: lines.linePos(e.pos[0]).line, field: '', message: `YAML syntax: ${e.message.split('\n')[0]}` });
    }
    return null;
  }
  const result = schema.safeParse(doc.toJS());
  if (!result.success) {
    for (const issue of result.error.issues) {
      problems.push({ file: display, line: lineOf(doc, lines, issue.path), field: issue.path.map(String).join('.'), message: issue.message });
    }
    return null;
  }
  return { id, value: result.data, hash: crypto.createHash('sha256').update(text).digest('hex') };
}

function yamlFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) throw new ConfigError([{ file: dir, line: null, field: '', message: 'directory does not exist' }]);
  return fs
    .readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => path.join(dir, f));
}

/**
 * Loads and validates every studies/*.yaml and surveys/*.yaml, plus cross-file references
 * (a study's survey exists; its material files exist inside the studies directory).
 * Throws ConfigError naming file, line and field for every problem; returns only when all is valid.
 */
export function loadConfig(dirs: { studiesDir: string; surveysDir: string }): LoadedConfig {
  const problems: ConfigProblem[] = [];
  const rel = (f: string) => path.relative(process.cwd(), f) || f;

  const surveys = new Map<string, LoadedSurvey>();
  for (const file of yamlFiles(dirs.surveysDir)) {
    const parsed = parseYamlFile(file, Survey, problems, rel(file));
    if (parsed) surveys.set(parsed.id, { ...parsed.value, id: parsed.id });
  }

  const studies = new Map<string, StudyDefinition>();
  for (const file of yamlFiles(dirs.studiesDir)) {
    const parsed = parseYamlFile(file, Study, problems, rel(file));
    if (!parsed) continue;
    const study = parsed.value;
    const lines = new LineCounter();
    const doc = parseDocument(fs.readFileSync(file, 'utf8'), { lineCounter: lines });
    const at = (p: PropertyKey[]) => lineOf(doc, lines, p);
    let ok = true;
    if (!surveys.has(study.survey) && !problems.some((p) => p.file === rel(path.join(dirs.surveysDir, `${study.survey}.yaml`)))) {
      problems.push({ file: rel(file), line: at(['survey']), field: 'survey', message: `no survey "${study.survey}" in ${rel(dirs.surveysDir)}` });
      ok = false;
    }
    const root = path.resolve(dirs.studiesDir);
    study.tasks.forEach((task, t) =>
      task.materials.forEach((m, i) => {
        const abs = path.resolve(root, m.path);
        const field = ['tasks', t, 'materials', i, 'path'];
        if (!abs.startsWith(root + path.sep)) {
          problems.push({ file: rel(file), line: at(field), field: field.join('.'), message: 'must stay inside the studies directory' });
          ok = false;
        } else if (!fs.existsSync(abs) || !fs.statSync(abs).isFile()) {
          problems.push({ file: rel(file), line: at(field), field: field.join('.'), message: `file not found: ${rel(abs)}` });
          ok = false;
        }
      }),
    );
    if (ok) studies.set(parsed.id, { ...study, id: parsed.id, definitionHash: parsed.hash, dir: root });
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return { studies, surveys };
}
