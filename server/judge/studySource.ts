/**
 * Reads sessions for the judge and the annotator from the study database (through the Store), and
 * task rubric ids / instructions from the loaded study definition when there is one.
 */
import type { Store } from '../db/store';
import type { SessionMaterial } from './sessionMaterial';

export interface StudyTaskDefinition {
  id: string;
  rubric: string;
  instructions: string;
  /** Ids of the task's image fields. */
  imageFields?: readonly string[];
}

export function readStudySessions(store: Store, studyId: string, tasks: readonly StudyTaskDefinition[] = []): SessionMaterial[] {
  const taskById = new Map(tasks.map((t) => [t.id, t]));
  return store.sessions.listByStudy(studyId).map((session) => {
    const versions = store.artifacts.listVersions(session.id);
    const latest = versions[versions.length - 1];
    const task = taskById.get(session.taskId);
    const utterances = store.messages
      .listForSession(session.id)
      .filter((m) => m.text.trim() !== '')
      .map((m, turn) => ({ turn, speaker: m.role === 'user' ? ('user' as const) : ('agent' as const), text: m.text, messageId: m.id }));
    return {
      sessionId: session.id,
      task: session.taskId,
      rubricId: task?.rubric ?? null,
      taskInstructions: task?.instructions ?? null,
      artifact: latest ? { version: latest.version, fields: latest.fields } : null,
      imageFields: task?.imageFields ?? [],
      utterances,
    };
  });
}
