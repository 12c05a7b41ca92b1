/**
 * What the judge and the annotator need from one session, whatever it was read from (a dataset
 * directory or the study database), and how the judge input is assembled from it.
 */
import type { ImageMode, ImageSource } from './judgeImages';
import { imagePlaceholder, type JudgeInput } from './prompt';
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
  /** Artifact fields that hold an uploaded image (by the study definition). */
  imageFields?: readonly string[];
  /** Where each uploaded image of the latest artifact is, by field id (read only with `--images attach`). */
  images?: Readonly<Record<string, ImageSource>>;
  /** Field labels from the study definition, by field id (names an attached image's field). */
  fieldLabels?: Readonly<Record<string, string>>;
  utterances: Utterance[];
}

/** Artifact fields holding run output rather than the deliverable; shown as execution excerpts. */
const EXECUTION_FIELD = /(^|[_-])(output|outputs|execution|exec|log|logs|stdout|stderr|run)($|[_-])/i;
const MAX_SECTION_CHARS = 20_000;

function clip(text: string, max = MAX_SECTION_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[… ${text.length - max} characters cut]`;
}

/** A field value that names an image file (how exported datasets refer to uploads). */
export const IMAGE_FILE = /\.(png|jpe?g|gif|webp|svg)$/i;

const isImageField = (material: SessionMaterial, name: string, value: string): boolean =>
  value.trim() !== '' && ((material.imageFields ?? []).includes(name) || material.images?.[name] !== undefined || IMAGE_FILE.test(value.trim()));

/**
 * The fields as "## name\nvalue" blocks. An image field shows a note (describe) or a pointer to its
 * attached image (attach, collected into `attached` in order).
 */
function renderFields(fields: Array<[string, string]>, material: SessionMaterial, attached: ImageSource[] | null): string {
  return fields
    .map(([name, value]) => {
      if (!isImageField(material, name, value)) return `## ${name}\n${value}`;
      if (attached === null) return `## ${name}\n[an image was uploaded here; it is not shown to you]`;
      attached.push(
        material.images?.[name] ?? {
          fieldId: name,
          label: material.fieldLabels?.[name] ?? name,
          file: null,
          shownAs: `the field's value`,
          missing: 'the study definition makes it an image field, but no uploaded file is recorded for its value',
        },
      );
      return `## ${name}\n${imagePlaceholder(attached.length)}`;
    })
    .join('\n\n');
}

/** The judge's text input for a session; with `images: 'attach'` it also lists the images to attach. */
export function buildJudgeInput(material: SessionMaterial, rubric: Rubric, images: ImageMode = 'describe'): JudgeInput {
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
  const attached: ImageSource[] | null = images === 'attach' ? [] : null;
  return {
    taskRequest: clip(request),
    artifact: clip(deliverable.length > 0 ? renderFields(deliverable, material, attached) : '(empty: no artifact was submitted)'),
    executionExcerpts: clip(renderFields(execution, { ...material, imageFields: [], images: {} }, null)),
    ...(attached && attached.length > 0 ? { images: attached } : {}),
  };
}
