import type { Express } from 'express';
import type { Server } from 'socket.io';
import { AdminSessions } from '../admin/auth';
import type { ReplyResumer, ServiceContext } from '../services/serviceContext';
import { attachWizardNamespace } from './consoleSocket';
import { WizardDesk } from './desk';
import { recoverReviews } from './recoverReviews';
import { wizardRoutes } from './routes';
import { groupWizardRoutes } from './groupRoutes';
import type { ServerPlugin } from '../plugins';

/**
 * Researcher-in-the-loop replies as a plug-in (registered by wiring/plugins.ts, before the admin side whose catch-all
 * answers unknown admin routes): the desk on the service context (runReply hands review/wizard replies to it), the
 * /wizard socket namespace, the /api/admin/wizard routes on the admin sub-app, the resumption of replies that
 * were waiting for a researcher when the process stopped, and a researcher's voice as a group room's wizard agent.
 */
export function wizardPlugin(): ServerPlugin {
  return {
    name: 'wizard',
    async mount(host) {
      await mountWizard(host.ctx, host);
      // Group rooms: a researcher speaks as a wizard agent (the runtime's room does the writing; this plug-in the asking).
      host.adminApp.use(groupWizardRoutes(host.ctx, host.groups, new AdminSessions(host.store, host.now), host.log));
    },
  };
}

/** Mounts the desk on a running server's context and returns it. */
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
