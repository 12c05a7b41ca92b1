import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import type { GroupDocUpdateRow } from './contract/groups';
import { redactMemberEdits } from './groupDocRedaction';

const CANARY = 'CANARY-7f3a-withdrawn-edit';
const b64 = (u: Uint8Array) => Buffer.from(u).toString('base64');

/** Three people editing one document; each local update is a row, as the room stores them. */
function session(): { rows: GroupDocUpdateRow[]; peers: Record<string, Y.Doc> } {
  const rows: GroupDocUpdateRow[] = [];
  const peers: Record<string, Y.Doc> = { a: new Y.Doc(), b: new Y.Doc(), c: new Y.Doc() };
  for (const [sessionId, doc] of Object.entries(peers)) {
    doc.on('update', (update: Uint8Array, origin: unknown) => {
      if (origin !== 'remote') {
        const row = { groupId: 'g', seq: rows.length + 1, sessionId, fieldId: 'plan', update: b64(update), createdAt: rows.length };
        rows.push(row);
        for (const [other, d] of Object.entries(peers)) if (other !== sessionId) Y.applyUpdate(d, update, 'remote');
      }
    });
  }
  return { rows, peers };
}

const load = (rows: readonly GroupDocUpdateRow[]) => {
  const doc = new Y.Doc();
  for (const r of rows) Y.applyUpdate(doc, Buffer.from(r.update, 'base64'));
  return doc;
};

describe('redactMemberEdits', () => {
  it('removes the member\'s text and keeps the others\' edits loadable, placed around it', () => {
    const { rows, peers } = session();
    peers.a!.getText('plan').insert(0, 'Alpha plan. ');
    peers.b!.getText('plan').insert(12, `${CANARY} `);
    // c types inside b's text and right after it: c's items are placed relative to b's.
    peers.c!.getText('plan').insert(12 + 6, '[c]');
    peers.c!.getText('plan').insert(peers.c!.getText('plan').length, 'Gamma.');
    peers.a!.getText('notes').insert(0, 'a note');
    peers.b!.getText('notes').insert(6, ' and b');
    // a deletes part of b's text: a's delete of b's characters stays a delete.
    peers.a!.getText('plan').delete(12, 2);
    const before = peers.a!.getText('plan').toString();
    expect(before).toContain('[c]');

    const r = redactMemberEdits(rows, 'b');
    expect(r.removedSeqs).toEqual(rows.filter((x) => x.sessionId === 'b').map((x) => x.seq));
    const kept = rows.filter((x) => x.sessionId !== 'b');
    const stored = [...kept, { ...rows[0]!, seq: r.placeholder!.seq, sessionId: null, update: r.placeholder!.update }].sort((x, y) => x.seq - y.seq);
    const doc = load(stored);
    expect(doc.store.pendingStructs).toBeNull();
    expect(doc.getText('plan').toString()).toBe('Alpha plan. [c]Gamma.');
    expect(doc.getText('notes').toString()).toBe('a note');
    // b's characters still in the document when b withdrew: the canary less the two a deleted, and " and b".
    expect(r.removedChars).toBe(CANARY.length + 1 - 2 + ' and b'.length);
    // No stored row holds any of b's text, as bytes or decoded.
    for (const row of stored) {
      expect(Buffer.from(row.update, 'base64').toString('latin1')).not.toContain('NARY');
      expect(Buffer.from(row.update, 'base64').toString('latin1')).not.toContain('and b');
    }
    // A client that had the whole document converges on the same text when it gets the placeholder.
    Y.applyUpdate(peers.a!, Buffer.from(r.placeholder!.update, 'base64'));
    expect(peers.a!.getText('plan').toString()).toBe('Alpha plan. [c]Gamma.');
  });

  it('changes nothing for a member without edits', () => {
    const { rows, peers } = session();
    peers.a!.getText('plan').insert(0, 'only a');
    expect(redactMemberEdits(rows, 'b')).toEqual({ removedSeqs: [], removedChars: 0, placeholder: null });
  });
});
