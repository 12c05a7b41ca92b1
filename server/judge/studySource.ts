/**
 * Reads sessions for the judge and the annotator from the study database (through the Store), and
 * task rubric ids / instructions from the loaded study definition when there is one.
 */
import type { Store } from '../db/store';
import type { SessionMaterial } from './sessionMaterial';
import { openStudyRedactor } from '../../exports/studyRedactor';

export interface StudyTaskDefinition {
  id: string;
  rubric: string;
  instructions: string;
  /** Ids of the task's image fields. */
  imageFields?: readonly string[];
}

/**
 * Text is redacted exactly as the exporter redacts it: personal data typed by a participant never reaches
 * the judge or annotator model, and the prompt equals the one built from the exported dataset.
 * Turns are message positions (as in messages.jsonl and annotations.csv); empty messages (a reply
 * stopped before its first token) keep their position but are not utterances.
 */
export function readStudySessions(store: Store, studyId: string, tasks: readonly StudyTaskDefinition[] = []): SessionMaterial[] {
  const taskById = new Map(tasks.map((t) => [t.id, t]));
  const { redact } = openStudyRedactor(store.file, studyId);
  return store.sessions.listByStudy(studyId).map((session) => {
    const versions = store.artifacts.listVersions(session.id);
    const latest = versions[versions.length - 1];
    const task = taskById.get(session.taskId);
    const utterances = store.messages
      .listForSession(session.id)
      .map((m, turn) => ({ turn, speaker: m.role === 'user' ? ('user' as const) : ('agent' as const), text: redact(m.text), messageId: m.id }))
      .filter((u) => u.text.trim() !== '');
    return {
      sessionId: session.id,
      task: session.taskId,
      rubricId: task?.rubric ?? null,
      taskInstructions: task?.instructions ?? null,
      artifact: latest ? { version: latest.version, fields: redactFields(latest.fields, redact) } : null,
      imageFields: task?.imageFields ?? [],
      utterances,
    };
  });
}

function redactFields(fields: Record<string, string>, redact: (text: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, redact(value)]));
}
