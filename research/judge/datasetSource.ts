/**
 * Reads sessions for the judge and the annotator from an exported dataset directory:
 * sessions.csv (session_id, task), artifacts.jsonl (session_id, version, fields, files), messages.jsonl
 * (session_id, seq, role, text). Every row is validated; errors name the file, line and field.
 * When manifest.json names the study and its definition is found, task rubric and instructions
 * come from it.
 *
 * Uploaded images: the exporter copies them under artifacts/<session>/ and puts that relative path
 * in the image field's value (and in the row's `files`); manifest.json records each file's sha256.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { z } from 'zod';
import { RecordError, type RecordProblem } from '../analysis/agreement/io/inputError';
import { readCsvTable } from '../analysis/agreement/io/readCsvTable';
import { readJsonlRecords } from '../analysis/agreement/io/readJsonlRecords';
import type { ImageSource } from './judgeImages';
import { IMAGE_FILE, type SessionMaterial, type Utterance } from './sessionMaterial';

export class DatasetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatasetError';
  }
}

const SessionRow = z.object({ session_id: z.string().min(1), task: z.string().min(1) });
const ArtifactRow = z.object({
  session_id: z.string().min(1),
  version: z.number().int().nonnegative(),
  fields: z.record(z.string(), z.unknown()),
  /** Dataset-relative paths of the files uploaded for this version (absent in hand-made datasets). */
  files: z.array(z.string()).optional(),
});
const MessageRow = z.object({
  session_id: z.string().min(1),
  seq: z.number().int(),
  role: z.enum(['user', 'assistant']),
  text: z.string(),
});

function issueText(issues: Extract<RecordProblem, { kind: 'schema' }>['issues']): string {
  return issues.map((i) => `${i.path.map(String).join('.') || '(row)'}: ${i.message}`).join('; ');
}

/** Runs a shared record reader, rewording a bad record as a DatasetError "<file>:<line>: <field>: <message>". */
function asDatasetError<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (!(err instanceof RecordError)) throw err;
    const { problem, file } = err;
    if (problem.kind === 'schema') throw new DatasetError(`${file}:${err.line}: ${issueText(problem.issues)}`);
    if (problem.format === 'JSON') throw new DatasetError(`${file}:${err.line}: not valid JSON (${problem.detail})`);
    throw new DatasetError(`${file}: ${problem.detail}`);
  }
}

export function readJsonl<T>(file: string, schema: z.ZodType<T>): T[] {
  if (!existsSync(file)) return [];
  return asDatasetError(() => readJsonlRecords(file, schema)).map((r) => r.value);
}

export function readSessionsCsv(dir: string): Array<{ session_id: string; task: string }> {
  const file = join(dir, 'sessions.csv');
  if (!existsSync(file)) throw new DatasetError(`${file}: not found (is ${dir} a dataset directory?)`);
  return asDatasetError(() => readCsvTable(file, SessionRow, undefined, { trim: false })).map((r) => r.value);
}

function fieldText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

export interface StudyTaskInfo {
  rubric: string;
  instructions: string;
  imageFields?: readonly string[];
  /** Field labels by field id. */
  fieldLabels?: Readonly<Record<string, string>>;
}

const ManifestFiles = z.object({ files: z.array(z.object({ path: z.string(), sha256: z.string() })) });

/** sha256 of each file listed in manifest.json, by dataset-relative path (empty without a readable manifest). */
function manifestHashes(dir: string): Map<string, string> {
  try {
    const parsed = ManifestFiles.safeParse(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')));
    return new Map(parsed.success ? parsed.data.files.map((f) => [f.path, f.sha256]) : []);
  } catch {
    return new Map();
  }
}

/**
 * The image files an artifact version names: fields whose value is one of its `files` or looks like an
 * image path. The path must stay inside the dataset directory.
 */
function imageSources(
  dir: string,
  artifact: { fields: Record<string, string>; files: readonly string[] },
  labels: Readonly<Record<string, string>>,
  hashes: Map<string, string>,
): Record<string, ImageSource> {
  const sources: Record<string, ImageSource> = {};
  for (const [fieldId, raw] of Object.entries(artifact.fields)) {
    const value = raw.trim();
    if (value === '' || !(artifact.files.includes(value) || IMAGE_FILE.test(value))) continue;
    const root = resolve(dir);
    const file = resolve(root, value);
    const inside = file.startsWith(root + sep);
    const recorded = hashes.get(value);
    sources[fieldId] = {
      fieldId,
      label: labels[fieldId] ?? fieldId,
      file: inside ? file : null,
      shownAs: value,
      ...(inside ? {} : { missing: 'the path leaves the dataset directory' }),
      ...(recorded !== undefined ? { recorded: { sha256: recorded, where: 'manifest.json' } } : {}),
    };
  }
  return sources;
}

/** Reads the whole dataset directory into per-session material, in sessions.csv order. */
export function readDatasetSessions(dir: string, tasks: Map<string, StudyTaskInfo> = new Map()): SessionMaterial[] {
  const sessions = readSessionsCsv(dir);
  const artifacts = readJsonl(join(dir, 'artifacts.jsonl'), ArtifactRow);
  const messages = readJsonl(join(dir, 'messages.jsonl'), MessageRow);

  const hashes = manifestHashes(dir);

  const latest = new Map<string, { version: number; fields: Record<string, string>; files: readonly string[] }>();
  for (const a of artifacts) {
    const prev = latest.get(a.session_id);
    if (!prev || a.version > prev.version) {
      latest.set(a.session_id, {
        version: a.version,
        fields: Object.fromEntries(Object.entries(a.fields).map(([k, v]) => [k, fieldText(v)])),
        files: a.files ?? [],
      });
    }
  }
  const bySession = new Map<string, Array<{ seq: number; role: 'user' | 'assistant'; text: string }>>();
  for (const m of messages) {
    const list = bySession.get(m.session_id) ?? [];
    list.push(m);
    bySession.set(m.session_id, list);
  }
  return sessions.map((s) => {
    const utterances: Utterance[] = (bySession.get(s.session_id) ?? [])
      .sort((a, b) => a.seq - b.seq)
      .map((m, turn): Utterance => ({ turn, speaker: m.role === 'user' ? 'user' : 'agent', text: m.text }))
      // An empty message (a reply stopped before its first token) keeps its turn number but is not an utterance.
      .filter((u) => u.text.trim() !== '');
    const info = tasks.get(s.task);
    const artifact = latest.get(s.session_id);
    const fieldLabels = info?.fieldLabels ?? {};
    return {
      sessionId: s.session_id,
      task: s.task,
      rubricId: info?.rubric ?? null,
      taskInstructions: info?.instructions ?? null,
      artifact: artifact ? { version: artifact.version, fields: artifact.fields } : null,
      imageFields: info?.imageFields ?? [],
      images: artifact ? imageSources(dir, artifact, fieldLabels, hashes) : {},
      fieldLabels,
      utterances,
    };
  });
}

/** Study id named by the dataset's manifest.json, if any. */
export function datasetStudyId(dir: string): string | null {
  const file = join(dir, 'manifest.json');
  if (!existsSync(file)) return null;
  try {
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const study = manifest.study_id ?? manifest.studyId ?? (manifest.study as { id?: unknown } | undefined)?.id ?? manifest.study;
    return typeof study === 'string' ? study : null;
  } catch {
    return null;
  }
}
