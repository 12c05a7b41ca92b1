import type { StudyPublic } from '../../../common/http';

/** MTurk preview (assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE): describe the study, create nothing. */
export function PreviewPage({ study }: { study: StudyPublic | null }) {
  return (
    <main className="page narrow" data-step="preview">
      <h1>{study?.title ?? 'Study preview'}</h1>
      <section className="card">
        {study?.description && <p>{study.description}</p>}
        {study && (
          <p>
            You will work on a task together with an AI assistant, then answer a short survey. It takes up to{' '}
            {study.timeLimitMinutes} minutes.
          </p>
        )}
        <p>
          <strong>This is a preview.</strong> Accept the HIT to begin; nothing you do on this page is recorded.
        </p>
      </section>
    </main>
  );
}
