import type { WizardQueueItem, WizardReviewOutcome } from '../../../common/wizard';

/** What the researcher is asked to do for a waiting reply, in words (not the condition's mode names). */
export function modeLabel(mode: WizardQueueItem['mode']): string {
  return mode === 'review' ? 'Check the model’s draft' : 'Write the reply yourself';
}

/** Where a waiting reply stands: who holds it, or whether the model's draft is ready. */
export function itemStatus(item: WizardQueueItem): string {
  if (item.claimed === 'you') return 'You hold it';
  if (item.claimed === 'other') return 'Another researcher holds it';
  if (item.mode === 'review') return item.draftDone ? 'Draft ready' : 'Model drafting…';
  return 'Waiting for your reply';
}

/** Why the reply that was open left the queue, for the researcher who had it open. */
export function outcomeText(outcome: WizardReviewOutcome | null): string {
  if (!outcome) return 'This reply is no longer waiting (it was answered or closed).';
  switch (outcome.state) {
    case 'sent':
      return outcome.by === 'you' ? 'You sent this reply.' : 'Another researcher sent a reply to this message.';
    case 'fallback':
      return 'The time to answer ran out: the participant was sent the fallback reply.';
    case 'discarded':
      if (outcome.reason === 'participant') return 'The participant pressed Stop, so this reply was closed and nothing was sent.';
      if (outcome.reason === 'researcher') return outcome.by === 'you' ? 'You discarded this reply.' : 'Another researcher discarded this reply.';
      if (outcome.reason === 'time_limit' || outcome.reason === 'session_ended') return 'The participant’s session ended, so this reply was closed.';
      return 'This reply was closed without an answer.';
    default:
      return 'This reply is still waiting.';
  }
}

/** A server refusal as a sentence for the researcher (the server's words start lowercase, as a clause). */
export function researcherMessage(message: string): string {
  const known: Record<string, string> = {
    'the model is still drafting; wait for the draft to end': 'The model is still writing its draft. Approve it once it is finished, or edit it or write your own reply.',
    'another researcher has claimed this reply': 'Another researcher holds this reply: only they can answer it.',
    'the draft is empty; replace it with a reply': 'The model’s draft is empty: write your own reply instead.',
  };
  const text = known[message] ?? message;
  return text.charAt(0).toUpperCase() + text.slice(1) + (/[.!?]$/.test(text) ? '' : '.');
}
