/**
 * Removing one member's edits from a group's shared document (withdrawal; docs/groups.md). The document is the
 * group's Yjs updates replayed in order (group_doc_updates). Deleting a member's update rows alone would break it:
 * the others' later edits are placed relative to the member's characters (Yjs items name their neighbours by id),
 * so Yjs would hold them back as pending and the others' text would vanish too.
 *
 * So the document is rebuilt once: every update is applied, the member's characters are deleted in it, and the
 * document's garbage collection drops their content (a deleted item keeps only its id and length). What the
 * member's rows are replaced with is one update holding the member's items as those content-free placeholders (and
 * the document's deletions, ids only): the others' rows then load as before, around them, and the text the member
 * wrote is nowhere in the store. A member's client is the Yjs client id of the items in their updates; a client id
 * that also appears in another session's updates is not the member's alone and is left as it is.
 */
import * as Y from 'yjs';
import type { GroupDocUpdateRow } from './contract/groups';

export interface DocRedaction {
  /** The seqs of the member's update rows, to delete (in seq order). */
  removedSeqs: number[];
  /** Characters of the member's that were still in the document and are deleted by the redaction. */
  removedChars: number;
  /** The update that stands in for the member's rows (base64), or null when they had none. */
  placeholder: { seq: number; fieldId: string; update: string } | null;
}

const decode = (update: string) => new Uint8Array(Buffer.from(update, 'base64'));

function clientsOf(update: string): Set<number> {
  return new Set(Y.decodeUpdate(decode(update)).structs.map((s) => s.id.client));
}

/** The redaction of `sessionId`'s edits from a group's updates (all of the group's rows, in seq order). */
export function redactMemberEdits(updates: readonly GroupDocUpdateRow[], sessionId: string): DocRedaction {
  const mine = updates.filter((u) => u.sessionId === sessionId);
  if (mine.length === 0) return { removedSeqs: [], removedChars: 0, placeholder: null };
  const others = new Set<number>();
  for (const u of updates) if (u.sessionId !== sessionId) for (const c of clientsOf(u.update)) others.add(c);
  const clients = new Set<number>();
  for (const u of mine) for (const c of clientsOf(u.update)) if (!others.has(c)) clients.add(c);

  const doc = new Y.Doc({ gc: true });
  for (const u of updates) Y.applyUpdate(doc, decode(u.update));
  let removedChars = 0;
  doc.transact(() => {
    for (const name of [...doc.share.keys()]) {
      const text = doc.getText(name);
      const ranges: Array<[number, number]> = [];
      let index = 0;
      for (let item = text._start; item !== null; item = item.right) {
        if (item.deleted || !item.countable) continue;
        if (clients.has(item.id.client)) ranges.push([index, item.length]);
        index += item.length;
      }
      for (const [at, length] of ranges.reverse()) {
        text.delete(at, length);
        removedChars += length;
      }
    }
  });
  // Everything the document has except the member's items: a target that has every other client's items in full.
  const vector = Y.decodeStateVector(Y.encodeStateVector(doc));
  for (const c of clients) vector.delete(c);
  const placeholder = Y.encodeStateAsUpdate(doc, Y.encodeStateVector(vector));
  doc.destroy();
  return {
    removedSeqs: mine.map((u) => u.seq),
    removedChars,
    placeholder: { seq: mine[0]!.seq, fieldId: mine[0]!.fieldId, update: Buffer.from(placeholder).toString('base64') },
  };
}
