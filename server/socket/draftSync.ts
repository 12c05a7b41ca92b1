import type { Socket } from 'socket.io';
import type { ArtifactDraft, ArtifactDraftAck, ServerToClientEvents } from '../../common/events';

/**
 * Live draft sync between the tabs of one session: after a tab's `artifact:draft` was acknowledged, the
 * session's other sockets (on any node: the room broadcast goes through the cluster adapter) get the saved
 * values with the version they were stored as. The saving socket is left out, so the tab being typed in
 * never gets its own text back (its cursor and newer keystrokes stay as they are). Only the session's own
 * room hears it: a socket joins the room of the session its token names (handlers.ts), nothing else.
 * Conflicts on save are unchanged: a tab that had unsaved edits keeps them and its save is refused with
 * "conflict" (services/artifacts.ts).
 */
export function mirrorDraftToOtherTabs(
  socket: Pick<Socket<never, ServerToClientEvents>, 'to'>,
  room: string,
  saved: ArtifactDraft,
  ack: ArtifactDraftAck,
): void {
  socket.to(room).emit('artifact:draft', { fields: saved.fields, version: ack.version, savedAt: ack.savedAt });
}
