import express, { Router, type Request, type Response } from 'express';
import cookieParser from 'cookie-parser';
import type { Logger } from 'pino';
import { spokenByWizard } from '../../common/group';
import { WizardGroupSay, type WizardGroupAgents, type WizardGroupSaid } from '../../common/groupWizard';
import { requireAdmin, requireCsrf, type AdminSessions } from '../admin/auth';
import type { GroupRuntime } from '../groups/runtime';
import { sendError, sendFail, sendOk, sendZodFail } from '../http/respond';
import type { ServiceContext } from '../services/serviceContext';
import { researcherId } from './routes';

/**
 * The Wizard-of-Oz console in group rooms (common/groupWizard.ts): the wizard agents of a study, and a researcher's
 * message as one of them into a live group. The console follows the rooms over the researcher's live monitor (the
 * /admin namespace). Researcher login required; the POST needs the CSRF token. The message is stored with
 * sender_kind researcher and the agent's name; who wrote it goes to the audit log only, never to the science data.
 */
export function groupWizardRoutes(ctx: ServiceContext, groups: Pick<GroupRuntime, 'room'>, sessions: AdminSessions, log: Logger): Router {
  const router = Router();
  router.use('/api/admin/wizard', cookieParser(), requireAdmin(sessions), requireCsrf);
  const json = express.json({ limit: '64kb' });
  const handle = (name: string, fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response) =>
    fn(req, res).catch((err: unknown) => sendError(res, err, log, name));

  router.get(
    '/api/admin/wizard/studies/:studyId/group-agents',
    handle('wizard group agents', async (req, res) => {
      const studyId = String(req.params.studyId);
      const study = ctx.config.studies.get(studyId);
      if (!study) return sendFail(res, 'not_found', `no study "${studyId}"`);
      const agents = study.conditions.flatMap((c) =>
        (c.agents ?? []).filter(spokenByWizard).map((a) => ({ conditionId: c.id, name: a.name, maxReplies: a.max_replies, cannedReplies: a.assistant?.canned_replies ?? [] })),
      );
      sendOk<WizardGroupAgents>(res, { studyId, agents });
    }),
  );

  router.post(
    '/api/admin/wizard/groups/:groupId/say',
    json,
    handle('wizard group say', async (req, res) => {
      const parsed = WizardGroupSay.safeParse(req.body);
      if (!parsed.success) return sendZodFail(res, parsed.error, 'POST /api/admin/wizard/groups/:groupId/say');
      const groupId = String(req.params.groupId);
      if (!/^[0-9a-f-]{36}$/i.test(groupId)) return sendFail(res, 'invalid_input', 'groupId: not a group id', 'groupId');
      // Answered after COMMIT: the message is stored and pushed to the room.
      const message = await groups.room.speakAsAgent(groupId, parsed.data.agent, parsed.data.text);
      const group = await ctx.store.groups.getGroup(groupId);
      await ctx.store.audit.append({
        at: ctx.now(),
        actor: researcherId(req),
        action: 'wizard_group_message',
        studyId: group?.studyId ?? null,
        details: { groupId, agent: parsed.data.agent, groupSeq: message.groupSeq },
      });
      sendOk<WizardGroupSaid>(res, { groupSeq: message.groupSeq });
    }),
  );
  return router;
}
