import type { Express } from 'express';
import type { Server } from 'socket.io';
import { AdminSessions } from '../admin/auth';
import type { ServiceContext } from '../services/serviceContext';
import { attachWizardNamespace } from './consoleSocket';
import { WizardDesk } from './desk';
import { recoverReviews, type ReplyResumer } from './recoverReviews';
import { wizardRoutes } from './routes';

/**
 * Wires researcher-in-the-loop replies into a running server (server/app.ts): the desk on the service context
 * (runReply hands review/wizard replies to it), the /wizard socket namespace, the /api/admin/wizard routes on the
 * admin sub-app, and the resumption of replies that were waiting for a researcher when the process stopped.
 */
export async function mountWizard(ctx: ServiceContext, deps: { adminApp: Express; io: Server; chat: ReplyResumer }): Promise<WizardDesk> {
  const desk = new WizardDesk(ctx);
  ctx.wizard = desk;
  const sessions = new AdminSessions(ctx.store, ctx.now);
  desk.feed = attachWizardNamespace(deps.io, sessions, ctx.log);
  deps.adminApp.use(wizardRoutes(ctx, desk, sessions, ctx.log));
  const resumed = await recoverReviews(ctx, desk, deps.chat);
  if (resumed > 0) ctx.log.warn({ resumed }, 'replies waiting for a researcher before the restart are waiting again');
  return desk;
}
