import type { ArtifactValues, ChatMessageView, SessionState } from '../../common/session';
import type { SurveyAnswers } from '../../common/survey';

/** What a simulated participant types into the artifact form and the survey. */

/** The latest assistant message answering `userMessageId`, if any. */
export function lastReplyTo(messages: readonly ChatMessageView[], userMessageId: string): ChatMessageView | undefined {
  return [...messages].reverse().find((m) => m.role === 'assistant' && m.replyTo === userMessageId);
}

/** Valid values for every artifact field; image fields take the given upload ids. */
export function artifactValues(state: SessionState, uploads: Record<string, string>, progress: number): ArtifactValues {
  const values: ArtifactValues = {};
  for (const field of state.task.fields) {
    if (field.kind === 'image') {
      const id = uploads[field.id];
      if (id) values[field.id] = id;
    } else if (field.kind === 'code') {
      values[field.id] = `# simulated participant, after ${progress} turns\nprint("hello")\n`;
    } else {
      values[field.id] = `Simulated answer after ${progress} turns of chat.`;
    }
  }
  return values;
}

/**
 * Valid answers: Likert and attention checks random, required text filled. The browser never learns an
 * attention check's expected answer (the server scores it), so a simulated participant cannot aim for it.
 */
export function surveyAnswers(state: SessionState, random: () => number): SurveyAnswers {
  const answers: SurveyAnswers = {};
  for (const item of state.survey.items) {
    if (item.kind === 'likert' || item.kind === 'attention_check') answers[item.id] = 1 + Math.floor(random() * item.points);
    else if (item.required || random() < 0.5) answers[item.id] = 'Simulated free-text answer.';
  }
  return answers;
}
