import { io } from 'socket.io-client';
import type { SessionState } from '../../common/session';
import { joinStudy, visitLinkParams } from '../../research/simulation/http';
import { participantLabel } from '../../research/simulation/participant';

/**
 * "Every session resumes": for each simulated participant, join again with the same platform id and
 * check that the server hands back the SAME session (resumed: true) and that a fresh socket can read
 * its state. Returns one problem string per session that did not resume.
 */
export async function checkSessionsResume(options: {
  baseUrl: string;
  studyId: string;
  runId: string;
  sessions: ReadonlyMap<number, string>;
  concurrency?: number;
}): Promise<{ checked: number; problems: string[] }> {
  const problems: string[] = [];
  const entries = [...options.sessions];
  let next = 0;
  async function worker() {
    while (next < entries.length) {
      const [index, sessionId] = entries[next++]!;
      try {
        const joined = await joinStudy(options.baseUrl, options.studyId, visitLinkParams(participantLabel(options.runId, index)), 20_000);
        if (joined.sessionId !== sessionId) problems.push(`participant ${index}: rejoin gave session ${joined.sessionId}, expected ${sessionId}`);
        else if (!joined.resumed) problems.push(`participant ${index}: rejoin not marked resumed`);
        const state = await readState(options.baseUrl, joined.token);
        if (state.sessionId !== sessionId) problems.push(`participant ${index}: state of ${state.sessionId}, expected ${sessionId}`);
      } catch (error) {
        problems.push(`participant ${index}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  await Promise.all(Array.from({ length: options.concurrency ?? 10 }, worker));
  return { checked: entries.length, problems };
}

export function readState(baseUrl: string, token: string): Promise<SessionState> {
  return new Promise((resolve, reject) => {
    const socket = io(baseUrl, { auth: { token }, transports: ['websocket'], forceNew: true, reconnection: false });
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error('session:state timed out'));
    }, 10_000);
    socket.once('connect_error', (e) => {
      clearTimeout(timer);
      socket.close();
      reject(e);
    });
    socket.once('connect', () => {
      socket.emit('session:state', { clientTs: Date.now() }, (reply: { ok: boolean; data?: SessionState; error?: { code: string; message: string } }) => {
        clearTimeout(timer);
        socket.close();
        if (reply?.ok && reply.data) resolve(reply.data);
        else reject(new Error(`session:state: ${reply?.error?.code} ${reply?.error?.message}`));
      });
    });
  });
}
