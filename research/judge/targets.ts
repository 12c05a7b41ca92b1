/**
 * Turns session material into judge targets: picks each session's rubric (the study definition's
 * task.rubric, else --rubric, else the rubric whose taskKinds list the task) and builds its input.
 * Sessions without a submitted artifact are not judged. With `images: 'attach'` each input also lists
 * the images to send (read when the call is made).
 */
import type { ImageMode } from './judgeImages';
import { buildJudgeInput, type SessionMaterial } from './sessionMaterial';
import { rubricForTask, type LoadedRubric } from '../../lib/studyFiles/rubricFiles';
import type { JudgeTarget } from './runJudge';

export class RubricSelectionError extends Error {}

export function chooseRubric(material: SessionMaterial, rubrics: Map<string, LoadedRubric>, flag: string | undefined): LoadedRubric {
  const wanted = material.rubricId ?? flag;
  if (wanted !== undefined) {
    const found = rubrics.get(wanted);
    if (!found) throw new RubricSelectionError(`rubric "${wanted}" (for task "${material.task}") not found; known: ${[...rubrics.keys()].join(', ')}`);
    return found;
  }
  const byKind = rubricForTask(rubrics, material.task);
  if (!byKind) {
    throw new RubricSelectionError(`no rubric for task "${material.task}": pass --rubric <id> (known: ${[...rubrics.keys()].join(', ')})`);
  }
  return byKind;
}

export function judgeTargets(
  materials: readonly SessionMaterial[],
  rubrics: Map<string, LoadedRubric>,
  rubricFlag?: string,
  images: ImageMode = 'describe',
): JudgeTarget[] {
  return materials
    .filter((m) => m.artifact !== null)
    .map((m) => {
      const rubric = chooseRubric(m, rubrics, rubricFlag);
      return { sessionId: m.sessionId, rubric, input: buildJudgeInput(m, rubric.rubric, images) };
    });
}
