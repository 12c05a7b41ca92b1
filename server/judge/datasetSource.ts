/**
 * Reads sessions for the judge and the annotator from an exported dataset directory:
 * sessions.csv (session_id, task), artifacts.jsonl (session_id, version, fields), messages.jsonl
 * (session_id, seq, role, text). Every row is validated; errors name the file, line and field.
 * When manifest.json names the study and its definition is found, task rubric and instructions
 * come from it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { z } from 'zod';
import type { SessionMaterial, Utterance } from './sessionMaterial';

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
});
const MessageRow = z.object({
  session_id: z.string().min(1),
  seq: z.number().int(),
  role: z.enum(['user', 'assistant']),
  text: z.string(),
});

function issueText(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(row)'}: ${i.message}`).join('; ');
}

export function readJsonl<T>(file: string, schema: z.ZodType<T>): T[] {
  if (!existsSync(file)) return [];
  const out: T[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch (err) {
        throw new DatasetError(`${file}:${i + 1}: not valid JSON (${(err as Error).message})`);
      }
      const parsed = schema.safeParse(raw);
      if (!parsed.success) throw new DatasetError(`${file}:${i + 1}: ${issueText(parsed.error)}`);
      out.push(parsed.data);
    });
  return out;
}

export function readSessionsCsv(dir: string): Array<{ session_id: string; task: string }> {
  const file = join(dir, 'sessions.csv');
  if (!existsSync(file)) throw new DatasetError(`${file}: not found (is ${dir} a dataset directory?)`);
  let rows: Array<{ record: Record<string, string>; line: number }>;
  try {
    rows = parseCsv(readFileSync(file, 'utf8'), {
      columns: true,
      skip_empty_lines: true,
      bom: true,
      on_record: (record: Record<string, string>, context: { lines: number }) => ({ record, line: context.lines }),
    }) as unknown as Array<{ record: Record<string, string>; line: number }>;
  } catch (err) {
    throw new DatasetError(`${file}: ${(err as Error).message}`);
  }
  return rows.map(({ record, line }) => {
    const parsed = SessionRow.safeParse(record);
    if (!parsed.success) throw new DatasetError(`${file}:${line}: ${issueText(parsed.error)}`);
    return parsed.data;
  });
}

function fieldText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

export interface StudyTaskInfo {
  rubric: string;
  instructions: string;
  imageFields?: readonly string[];
}

/** Reads the whole dataset directory into per-session material, in sessions.csv order. */
export function readDatasetSessions(dir: string, tasks: Map<string, StudyTaskInfo> = new Map()): SessionMaterial[] {
  const sessions = readSessionsCsv(dir);
  const artifacts = readJsonl(join(dir, 'artifacts.jsonl'), ArtifactRow);
  const messages = readJsonl(join(dir, 'messages.jsonl'), MessageRow);

  const latest = new Map<string, { version: number; fields: Record<string, string> }>();
  for (const a of artifacts) {
    const prev = latest.get(a.session_id);
    if (!prev || a.version > prev.version) {
      latest.set(a.session_id, {
        version: a.version,
        fields: Object.fromEntries(Object.entries(a.fields).map(([k, v]) => [k, fieldText(v)])),
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
      .map((m, turn) => ({ turn, speaker: m.role === 'user' ? 'user' : 'agent', text: m.text }));
    const info = tasks.get(s.task);
    return {
      sessionId: s.session_id,
      task: s.task,
      rubricId: info?.rubric ?? null,
      taskInstructions: info?.instructions ?? null,
      artifact: latest.get(s.session_id) ?? null,
      imageFields: info?.imageFields ?? [],
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
