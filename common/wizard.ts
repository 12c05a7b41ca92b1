/** The researcher wizard console's API (server/wizard/routes.ts, client/admin/wizard/). */
import { z } from 'zod';
import { ReplyOrigin } from './assistantMode';

export const WizardAction = z.enum(['approve', 'edit', 'replace']);
export const WizardSendRequest = z
  .object({
    action: WizardAction,
    /** The reply (edit/replace); ignored for approve, which sends the model's draft as it is. */
    text: z.string().max(20_000).optional(),
  })
  .strict();
export type WizardSendRequest = z.infer<typeof WizardSendRequest>;

export const WizardQueueItem = z.object({
  replyId: z.string(),
  sessionId: z.string(),
  conditionId: z.string(),
  mode: z.enum(['review', 'wizard']),
  state: z.enum(['waiting', 'claimed']),
  /** 'you', 'other' (another researcher holds it) or null (nobody). Researcher ids are never shown. */
  claimed: z.enum(['you', 'other']).nullable(),
  /** When the participant started waiting, and when the fallback goes out (server ms). */
  waitingSince: z.number(),
  deadlineAt: z.number(),
  draftDone: z.boolean(),
  /** The start of the participant's message that waits for this reply (as typed; rendered as text). */
  preview: z.string().optional(),
});
export type WizardQueueItem = z.infer<typeof WizardQueueItem>;

export const WizardQueue = z.object({ studyId: z.string(), serverNow: z.number(), items: z.array(WizardQueueItem) });
export type WizardQueue = z.infer<typeof WizardQueue>;

export const WizardTranscriptLine = z.object({ role: z.enum(['user', 'assistant']), text: z.string(), status: z.string() });

export const WizardReviewDetail = z.object({
  item: WizardQueueItem,
  serverNow: z.number(),
  transcript: z.array(WizardTranscriptLine),
  /** The model's draft (so far, or finished) when the researcher may see it; null in a wizard condition without show_model_draft. */
  draft: z.string().nullable(),
  draftVisible: z.boolean(),
  cannedReplies: z.array(z.string()),
  holdingMessage: z.string(),
});
export type WizardReviewDetail = z.infer<typeof WizardReviewDetail>;

/**
 * How a reply that left the queue ended, for the researcher who had it open: sent (by whom), the fallback,
 * or closed without a reply (the participant pressed Stop, the session ended, or a researcher discarded it).
 */
export const WizardReviewOutcome = z.object({
  replyId: z.string(),
  state: z.enum(['waiting', 'claimed', 'sent', 'fallback', 'discarded']),
  /** 'you' or 'other' for a sent or discarded reply when a researcher did it; null for the timeout, the participant or the system. */
  by: z.enum(['you', 'other']).nullable(),
  /** For a discarded reply: why (researcher, participant = pressed Stop, time_limit, watchdog, session_ended); null otherwise or unknown. */
  reason: z.string().nullable(),
});
export type WizardReviewOutcome = z.infer<typeof WizardReviewOutcome>;

/** GET /api/admin/wizard/studies/:id/uses: does the study have a review or wizard condition (the console's link is shown then). */
export const WizardUse = z.object({ uses: z.boolean() });
export type WizardUse = z.infer<typeof WizardUse>;

export const WizardSent = z.object({ messageId: z.string(), origin: ReplyOrigin, editDistance: z.number().nullable() });
export type WizardSent = z.infer<typeof WizardSent>;

/** Pushes of the /wizard socket.io namespace. */
export const WizardQueueChanged = z.object({ studyId: z.string() });
export const WizardDraftPush = z.object({ replyId: z.string(), text: z.string(), done: z.boolean() });
export type WizardDraftPush = z.infer<typeof WizardDraftPush>;
export const WizardWatch = z.object({ studyId: z.string().min(1).max(100) }).strict();
