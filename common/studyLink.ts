/**
 * The study link to give a recruitment platform. Prolific replaces the {{%…%}} placeholders per
 * participant; SESSION_ID is the per-visit id that lets a participant reopen their own session in
 * another browser (a link with only PROLIFIC_PID or participant_label needs the resume code instead).
 */
export const PROLIFIC_QUERY = 'PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}';

/** e.g. https://tandem.example.org/study/visualization?PROLIFIC_PID={{%PROLIFIC_PID%}}&… */
export function prolificStudyLink(base: string, studyId: string): string {
  return `${base.replace(/\/$/, '')}/study/${encodeURIComponent(studyId)}?${PROLIFIC_QUERY}`;
}

/** A link to try the study by hand: fixed test ids, with a per-visit id like Prolific's. */
export function testStudyLink(base: string, studyId: string, n = 1): string {
  return `${base.replace(/\/$/, '')}/study/${encodeURIComponent(studyId)}?PROLIFIC_PID=test-${n}&STUDY_ID=test&SESSION_ID=test-${n}-visit`;
}
