import { z } from 'zod';

/**
 * Who answers the participant in a condition (study file: `conditions[].assistant`):
 * - `model`: the model's reply goes straight to the participant (the default; existing study files are unchanged);
 * - `review`: the model drafts, a researcher approves, edits or replaces the draft before the participant sees it;
 * - `wizard`: a researcher writes the reply; the model's suggestion is shown to them only if `show_model_draft`.
 * The participant always sees the normal assistant (a typing indicator while the researcher works).
 */
export const AssistantMode = z.enum(['model', 'review', 'wizard']);
export type AssistantMode = z.infer<typeof AssistantMode>;

export const DEFAULT_HOLDING_MESSAGE = 'Sorry, I need a little more time on that one. Could you tell me a bit more while I think?';

export const AssistantConfig = z
  .object({
    mode: AssistantMode.default('model'),
    /** wizard: whether the researcher sees the model's suggestion (it is drafted and stored either way). */
    show_model_draft: z.boolean().default(false),
    /** How long the participant may wait for the researcher before the fallback is sent. */
    timeout_seconds: z.number().int().min(5).max(3600).default(120),
    fallback: z
      .object({
        /** wizard (and review when the model produced nothing): what the participant gets on timeout. */
        holding_message: z.string().min(1).max(4000).default(DEFAULT_HOLDING_MESSAGE),
      })
      .strict()
      .default({ holding_message: DEFAULT_HOLDING_MESSAGE }),
    /** One-click replies in the wizard console. */
    canned_replies: z.array(z.string().min(1).max(4000)).max(50).default([]),
  })
  .strict();
export type AssistantConfig = z.infer<typeof AssistantConfig>;

/** A condition's assistant when its study file has no `assistant` block. */
export const MODEL_ASSISTANT: AssistantConfig = AssistantConfig.parse({});

/** Where the words of an assistant message came from (provenance; exported in messages.jsonl). */
export const ReplyOrigin = z.enum(['model', 'model_edited', 'wizard', 'fallback']);
export type ReplyOrigin = z.infer<typeof ReplyOrigin>;

/** The condition's assistant configuration (a condition without an `assistant` block is answered by the model). */
export function assistantOf(condition: { assistant?: AssistantConfig | undefined }): AssistantConfig {
  return condition.assistant ?? MODEL_ASSISTANT;
}
