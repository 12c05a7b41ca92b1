import type { Server } from 'socket.io';
import type { Logger } from 'pino';
import { WizardWatch } from '../../common/wizard';
import { cookieFromHeader, SESSION_COOKIE, type AdminSessions } from '../admin/auth';
import type { ConsoleFeed } from './desk';

const studyRoom = (studyId: string) => `wizard:${studyId}`;

/**
 * The /wizard socket.io namespace: researcher-only (the login cookie is checked in the handshake, as for /admin).
 * A console emits `wizard:watch {studyId}` and then gets `wizard:queue {studyId}` whenever that study's queue
 * changed (it reloads it over HTTP) and `wizard:draft {replyId, text, done}` as visible drafts stream.
 */
export function attachWizardNamespace(io: Server, sessions: AdminSessions, log: Logger): ConsoleFeed {
  const ns = io.of('/wizard');
  ns.use((socket, next) => {
    sessions.resolve(cookieFromHeader(socket.handshake.headers.cookie, SESSION_COOKIE)).then(
      (session) => next(session ? undefined : new Error('unauthorized')),
      (err: unknown) => {
        log.warn({ err }, 'could not check a researcher session');
        next(new Error('unavailable'));
      },
    );
  });
  ns.on('connection', (socket) => {
    socket.on('wizard:watch', (payload: unknown, ack?: unknown) => {
      const parsed = WizardWatch.safeParse(payload);
      const reply = typeof ack === 'function' ? (ack as (r: unknown) => void) : () => undefined;
      if (!parsed.success) return reply({ ok: false, error: { code: 'invalid_input', message: 'wizard:watch needs {studyId}', field: 'studyId' } });
      for (const room of socket.rooms) if (room.startsWith('wizard:')) void socket.leave(room);
      void socket.join(studyRoom(parsed.data.studyId));
      reply({ ok: true, data: {} });
    });
  });
  return {
    queueChanged: (studyId) => ns.to(studyRoom(studyId)).emit('wizard:queue', { studyId }),
    draft: (studyId, replyId, text, done) => ns.to(studyRoom(studyId)).emit('wizard:draft', { replyId, text, done }),
  };
}
