/**
 * Researcher-in-the-loop provenance columns of messages.jsonl (issue 17): where each assistant message's words
 * came from. Appended after the original columns (the contract only grows). The researcher who sent a reply is
 * never exported (it stays in the reply_reviews table and the audit log).
 */
import type { ColumnDef } from './columnDef';
import type { ExportMessage } from '../../lib/storage';

export const REPLY_PROVENANCE_COLUMNS: readonly ColumnDef[] = [
  {
    name: 'origin',
    type: 'string',
    nullable: true,
    values: ['model', 'model_edited', 'wizard', 'fallback'],
    description:
      "Where an assistant message's words came from: model (the model's reply, or its draft approved unchanged), model_edited (the draft edited by a researcher), wizard (written by a researcher), fallback (sent when nobody answered in time: the draft in a review condition, the holding message in a wizard condition). Null for participant messages and replies a researcher discarded.",
  },
  {
    name: 'assistant_mode',
    type: 'string',
    nullable: true,
    values: ['model', 'review', 'wizard'],
    description: "The condition's assistant mode when the reply was made (study file conditions[].assistant.mode). Null for participant messages.",
  },
  {
    name: 'model_draft',
    type: 'string',
    nullable: true,
    description: 'The model draft a researcher saw or could have sent (redacted like text). Null for replies no researcher reviewed.',
  },
  {
    name: 'edit_distance',
    type: 'integer',
    nullable: true,
    unit: 'characters (UTF-16 code units)',
    description: 'Levenshtein distance from model_draft to text as sent (before redaction). 0 = sent unchanged. Null without a draft.',
  },
  {
    name: 'draft_diff',
    type: 'string',
    nullable: true,
    description: 'Unified diff (jsdiff createTwoFilesPatch, 3 lines of context) from model_draft to the text sent, redacted like text. Null without a draft.',
  },
  {
    name: 'wait_ms',
    type: 'integer',
    nullable: true,
    unit: 'ms',
    description: 'How long the participant waited for a reviewed reply (from their message to the reply). Null for replies no researcher reviewed.',
  },
];

/** The provenance cells of one message (redact: the exporter's redactor for the session). */
export function replyProvenance(m: ExportMessage, redact: (s: string) => string) {
  const r = m.review;
  if (m.role !== 'assistant') return { origin: null, assistant_mode: null, model_draft: null, edit_distance: null, draft_diff: null, wait_ms: null };
  if (!r) return { origin: 'model', assistant_mode: 'model', model_draft: null, edit_distance: null, draft_diff: null, wait_ms: null };
  return {
    origin: r.origin,
    assistant_mode: r.mode,
    model_draft: r.modelDraft === null ? null : redact(r.modelDraft),
    edit_distance: r.editDistance,
    draft_diff: r.diff === null ? null : redact(r.diff),
    wait_ms: r.waitMs,
  };
}
