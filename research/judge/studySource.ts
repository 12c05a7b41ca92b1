/**
 * Reads sessions for the judge and the annotator from the study database (through the Store), and
 * task rubric ids / instructions from the loaded study definition when there is one.
 */
import { resolve, sep } from 'node:path';
import type { Store } from '../../lib/storage';
import type { Task } from '../../common/study';
import type { ImageSource } from './judgeImages';
import type { SessionMaterial } from './sessionMaterial';
import { openStudyRedactor } from '../exports/studyRedactor';

export interface StudyTaskDefinition {
  id: string;
  rubric: string;
  instructions: string;
  /** Ids of the task's image fields. */
  imageFields?: readonly string[];
  /** Field labels by field id. */
  fieldLabels?: Readonly<Record<string, string>>;
}

/** The judge's view of a study's tasks (the CLI's --study mode and the dashboard use the same one). */
export function judgeTasksOf(study: { tasks: readonly Task[] }): StudyTaskDefinition[] {
  return study.tasks.map((t) => ({
    id: t.id,
    rubric: t.rubric,
    instructions: t.instructions,
    imageFields: t.fields.filter((f) => f.kind === 'image').map((f) => f.id),
    fieldLabels: Object.fromEntries(t.fields.map((f) => [f.id, f.label])),
  }));
}

/**
 * Text is redacted exactly as the exporter redacts it: personal data typed by a participant never reaches
 * the judge or annotator model, and the prompt equals the one built from the exported dataset.
 * Turns are message positions (as in messages.jsonl and annotations.csv); empty messages (a reply
 * stopped before its first token) keep their position but are not utterances.
 * An image field's value is the id of an upload of the session; its file is under the data directory
 * `dataDir`. Images are not redacted. Sessions are read one after the other (the result holds them all).
 */
export async function readStudySessions(store: Store, dataDir: string, studyId: string, tasks: readonly StudyTaskDefinition[] = []): Promise<SessionMaterial[]> {
  const taskById = new Map(tasks.map((t) => [t.id, t]));
  const studyRedactor = await openStudyRedactor(store, studyId);
  const out: SessionMaterial[] = [];
  for (const session of await store.sessions.listByStudy(studyId)) {
    const versions = await store.artifacts.listVersions(session.id);
    const latest = versions[versions.length - 1];
    const task = taskById.get(session.taskId);
    const fieldLabels = task?.fieldLabels ?? {};
    const { redact } = studyRedactor.forSessionId(session.id);
    const utterances = (await store.messages.listForSession(session.id))
      .map((m, turn) => ({ turn, speaker: m.role === 'user' ? ('user' as const) : ('agent' as const), text: redact(m.text), messageId: m.id }))
      .filter((u) => u.text.trim() !== '');
    out.push({
      sessionId: session.id,
      task: session.taskId,
      rubricId: task?.rubric ?? null,
      taskInstructions: task?.instructions ?? null,
      artifact: latest ? { version: latest.version, fields: redactFields(latest.fields, redact) } : null,
      imageFields: task?.imageFields ?? [],
      images: latest ? await uploadedImages(store, dataDir, session.id, latest.fields, fieldLabels) : {},
      fieldLabels,
      utterances,
    });
  }
  return out;
}

/** The fields whose value names an upload of this session for that field, with where its file is. */
async function uploadedImages(
  store: Store,
  dataDir: string,
  sessionId: string,
  fields: Record<string, string>,
  labels: Readonly<Record<string, string>>,
): Promise<Record<string, ImageSource>> {
  const sources: Record<string, ImageSource> = {};
  for (const [fieldId, value] of Object.entries(fields)) {
    const upload = value === '' ? undefined : await store.uploads.get(value);
    if (!upload || upload.sessionId !== sessionId || upload.fieldId !== fieldId) continue;
    const file = resolve(dataDir, upload.storagePath);
    const inside = file.startsWith(resolve(dataDir) + sep);
    sources[fieldId] = {
      fieldId,
      label: labels[fieldId] ?? fieldId,
      file: inside ? file : null,
      shownAs: `upload ${upload.id} (${upload.storagePath})`,
      ...(inside ? {} : { missing: 'its stored path leaves the data directory' }),
      recorded: { sha256: upload.sha256, where: 'the uploads table' },
    };
  }
  return sources;
}

function redactFields(fields: Record<string, string>, redact: (text: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, redact(value)]));
}
