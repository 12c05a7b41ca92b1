import type { Namespace, Server, Socket } from 'socket.io';
import type { Logger } from 'pino';
import { WizardWatch } from '../../common/wizard';
import { cookieFromHeader, SESSION_COOKIE, type AdminSessions } from '../admin/auth';
import type { ConsoleFeed } from './desk';

const studyRoom = (studyId: string) => `wizard:${studyId}`;

/**
 * How often a node checks that the researcher sessions behind its /wizard sockets are still live. A console
 * whose login ended (logout on any node, or the 12 h expiry) is disconnected within this, so it stops
 * receiving participants' drafts; one indexed lookup per logged-in researcher per period.
 */
export const CONSOLE_RECHECK_MS = 1_000;

interface ConsoleSocketData {
  /** The login cookie's token (memory only; the store keeps its SHA-256). */
  token: string;
}

/**
 * The /wizard socket.io namespace: researcher-only (the login cookie is checked in the handshake, as for /admin).
 * A console emits `wizard:watch {studyId}` and then gets `wizard:queue {studyId}` whenever that study's queue
 * changed (it reloads it over HTTP) and `wizard:draft {replyId, text, done}` as visible drafts stream.
 * The login is checked again every CONSOLE_RECHECK_MS while sockets are open: logout and expiry end them.
 */
export function attachWizardNamespace(io: Server, sessions: AdminSessions, log: Logger): ConsoleFeed {
  const ns = io.of('/wizard');
  ns.use((socket, next) => {
    const token = cookieFromHeader(socket.handshake.headers.cookie, SESSION_COOKIE);
    sessions.resolve(token).then(
      (session) => {
        if (!session || token === undefined) return next(new Error('unauthorized'));
        (socket.data as ConsoleSocketData).token = token;
        next();
      },
      (err: unknown) => {
        log.warn({ err }, 'could not check a researcher session');
        next(new Error('unavailable'));
      },
    );
  });
  const recheck = consoleRecheck(ns, sessions, log);
  ns.on('connection', (socket) => {
    recheck.start();
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

/**
 * The periodic check of the logins behind this node's /wizard sockets: running only while some are open, one
 * lookup per distinct login, and a login that is gone (logged out, expired) disconnects its sockets. A store
 * that does not answer leaves the sockets as they are until the next check.
 */
function consoleRecheck(ns: Namespace, sessions: AdminSessions, log: Logger): { start(): void } {
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  const check = async () => {
    const byToken = new Map<string, Socket[]>();
    for (const socket of ns.sockets.values()) {
      const token = (socket.data as ConsoleSocketData).token;
      byToken.set(token, [...(byToken.get(token) ?? []), socket]);
    }
    if (byToken.size === 0) {
      clearInterval(timer);
      timer = undefined;
      return;
    }
    for (const [token, sockets] of byToken) {
      if (await sessions.resolve(token)) continue;
      log.info({ sockets: sockets.length }, 'researcher login ended; wizard console sockets closed');
      for (const socket of sockets) socket.disconnect(true);
    }
  };
  return {
    start() {
      if (timer) return;
      timer = setInterval(() => {
        if (running) return;
        running = true;
        check()
          .catch((err: unknown) => log.warn({ err }, 'could not re-check researcher logins of wizard consoles'))
          .finally(() => (running = false));
      }, CONSOLE_RECHECK_MS);
      timer.unref();
    },
  };
}
