import { z } from 'zod';

/**
 * The Wizard-of-Oz console in group rooms (server/wizard/groupRoutes.ts, client/admin/wizard/GroupWizardPanel.tsx):
 * a researcher speaks as a group agent whose `assistant.mode` is wizard. The room shows the agent's name; the store
 * and the export say sender_kind researcher; the researcher's identity is never stored with the message.
 *
 *  GET  /api/admin/wizard/studies/:studyId/group-agents  → WizardGroupAgents
 *  POST /api/admin/wizard/groups/:groupId/say            WizardGroupSay → WizardGroupSaid   (CSRF)
 */

/** The wizard agents of a study's group conditions, with their one-click messages. */
export const WizardGroupAgent = z.object({
  conditionId: z.string(),
  name: z.string(),
  maxReplies: z.number().int(),
  cannedReplies: z.array(z.string()),
});
export const WizardGroupAgents = z.object({ studyId: z.string(), agents: z.array(WizardGroupAgent) });
export type WizardGroupAgents = z.infer<typeof WizardGroupAgents>;

export const WizardGroupSay = z
  .object({
    /** The agent's display name, as the study file names it. */
    agent: z.string().min(1).max(100),
    text: z.string().trim().min(1, 'must not be empty').max(20_000),
  })
  .strict();
export type WizardGroupSay = z.infer<typeof WizardGroupSay>;

export const WizardGroupSaid = z.object({ groupSeq: z.number().int().positive() });
export type WizardGroupSaid = z.infer<typeof WizardGroupSaid>;
