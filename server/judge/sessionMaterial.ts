/**
 * What the judge and the annotator need from one session, whatever it was read from (a dataset
 * directory or the study database), and how the judge input is assembled from it.
 */
import type { JudgeInput } from './prompt';
import type { Rubric } from '../../common/rubric';

export interface Utterance {
  /** 0-based index among the session's user/assistant messages (the `turn` of annotations.csv). */
  turn: number;
  speaker: 'user' | 'agent';
  text: string;
  /** Database message id, when read from the study database. */
  messageId?: string;
}

export interface SessionMaterial {
  sessionId: string;
  task: string;
  /** Rubric named by the study definition for this task, when known. */
  rubricId: string | null;
  /** Task instructions from the study definition, when known. */
  taskInstructions: string | null;
  /** Latest submitted artifact; null when the session submitted none. */
  artifact: { version: number; fields: Record<string, string> } | null;
  /** Artifact fields that hold an uploaded image (the judge is text-only: it is told one exists). */
  imageFields?: readonly string[];
  utterances: Utterance[];
}

/** Artifact fields holding run output rather than the deliverable; shown as execution excerpts. */
const EXECUTION_FIELD = /(^|[_-])(output|outputs|execution|exec|log|logs|stdout|stderr|run)($|[_-])/i;
const MAX_SECTION_CHARS = 20_000;

function clip(text: string, max = MAX_SECTION_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[… ${text.length - max} characters cut]`;
}

const IMAGE_FILE = /\.(png|jpe?g|gif|webp|svg)$/i;

function renderFields(fields: Array<[string, string]>, imageFields: readonly string[] = []): string {
  return fields
    .map(([name, value]) => {
      const isImage = imageFields.includes(name) || IMAGE_FILE.test(value.trim());
      const shown = isImage && value.trim() !== '' ? '[an image was uploaded here; it is not shown to you]' : value;
      return `## ${name}\n${shown}`;
    })
    .join('\n\n');
}

export function buildJudgeInput(material: SessionMaterial, rubric: Rubric): JudgeInput {
  const fields = Object.entries(material.artifact?.fields ?? {});
  const execution = fields.filter(([name]) => EXECUTION_FIELD.test(name));
  const deliverable = fields.filter(
    ([name]) => !EXECUTION_FIELD.test(name) && (rubric.artifactFields.length === 0 || rubric.artifactFields.includes(name)),
  );
  const opening = material.utterances.find((u) => u.speaker === 'user')?.text;
  const request = [
    `Task kind: ${material.task}`,
    material.taskInstructions ? `Instructions given to the participant:\n${material.taskInstructions}` : `Task summary: ${rubric.taskSummary}`,
    opening ? `The participant's first message to the assistant:\n${opening}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  return {
    taskRequest: clip(request),
    artifact: clip(deliverable.length > 0 ? renderFields(deliverable, material.imageFields) : '(empty: no artifact was submitted)'),
    executionExcerpts: clip(renderFields(execution)),
  };
}
