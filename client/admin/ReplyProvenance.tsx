import { diffWords } from 'diff';
import type { TranscriptMessage } from '../../common/admin';

type Provenance = NonNullable<TranscriptMessage['provenance']>;

/** Where a reviewed reply's words came from, in words a reader of the transcript understands. */
export function originLabel(p: Provenance): string {
  if (p.state === 'discarded') return 'No reply sent (closed without an answer)';
  switch (p.origin) {
    case 'model':
      return 'Model draft, approved by a researcher';
    case 'model_edited':
      return `Model draft, edited by a researcher (${p.editDistance ?? '?'} characters changed)`;
    case 'wizard':
      return p.mode === 'wizard' ? 'Written by a researcher (wizard)' : 'Replaced by a researcher';
    case 'fallback':
      return p.modelDraft ? 'Fallback: the model draft, sent when nobody answered in time' : 'Holding message, sent when nobody answered in time';
    default:
      return 'Waiting for a researcher';
  }
}

/** The model name as the author of the reply only when the model's words went out; otherwise it drafted. */
export function modelLabel(model: string, p: Provenance | undefined): string {
  if (!p || p.origin === 'model' || (p.origin === 'fallback' && p.modelDraft)) return model;
  return `draft by ${model}`;
}

/**
 * The provenance of one reply in the transcript (and so in the replay): a badge with its origin, and for a
 * reply the researcher changed, the model's draft and a word diff from it to what was sent. Text only.
 */
export function ReplyProvenance({ provenance: p, sent }: { provenance: Provenance; sent: string }) {
  const changed = p.modelDraft !== null && p.modelDraft !== sent && p.state !== 'discarded';
  return (
    <div className="admin-provenance" data-testid="reply-provenance">
      <span className={`admin-origin admin-origin-${p.origin ?? p.state}`} data-testid="reply-origin">
        {originLabel(p)}
      </span>
      {p.waitMs !== null && <span className="hint"> · the participant waited {(p.waitMs / 1000).toFixed(1)} s</span>}
      {p.modelDraft !== null && (
        <details className="admin-draft">
          <summary>{changed ? 'Model draft and the changes' : 'Model draft'}</summary>
          <h4 className="admin-draft-label">The model’s draft</h4>
          <p className="admin-msg-text" data-testid="reply-model-draft">{p.modelDraft || '(empty draft)'}</p>
          {changed && <h4 className="admin-draft-label">Changes to it (<ins>added</ins>, <del>removed</del>)</h4>}
          {changed && (
            <p className="admin-msg-text admin-diff" data-testid="reply-diff" aria-label="Changes from the draft to the reply sent">
              {diffWords(p.modelDraft!, sent).map((part, i) =>
                part.added ? <ins key={i}>{part.value}</ins> : part.removed ? <del key={i}>{part.value}</del> : <span key={i}>{part.value}</span>,
              )}
            </p>
          )}
        </details>
      )}
    </div>
  );
}
