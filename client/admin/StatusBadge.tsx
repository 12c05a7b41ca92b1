import type { StudyStatus } from '../../common/http';

export const STUDY_STATUS_HELP: Record<StudyStatus, string> = {
  draft: 'not open: the link is hidden and nobody new can join; sessions already in progress may finish',
  pilot: 'open; new sessions are marked pilot and left out of assignment balance, exports and analysis by default',
  live: 'open: new sessions count',
  closed: 'not open: nobody new can join; running sessions may finish',
};

export function StatusBadge({ status, testId }: { status: StudyStatus; testId?: string }) {
  return (
    <span className={`status-badge status-${status}`} title={STUDY_STATUS_HELP[status]} {...(testId ? { 'data-testid': testId } : {})}>
      {status}
    </span>
  );
}
