import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { applyRemote, editTo, onLocalUpdate } from './sharedText';

describe('shared text: local updates', () => {
  it('sends each local edit once, under the field it changed, however many fields the document has', () => {
    const doc = new Y.Doc();
    const sent: [string, string][] = [];
    const off = onLocalUpdate(doc, (update, field) => sent.push([field, update]));
    editTo(doc, 'plan', 'Museum at 10');
    editTo(doc, 'budget', '€900');
    editTo(doc, 'plan', 'Museum at 10, lunch at 12');
    editTo(doc, 'plan', 'Museum at 10, lunch at 12'); // no change: nothing to send
    expect(sent.map(([field]) => field)).toEqual(['plan', 'budget', 'plan']);

    // The sent updates rebuild the same document elsewhere; a remote update is never sent back.
    const other = new Y.Doc();
    for (const [, update] of sent) applyRemote(other, update);
    expect([other.getText('plan').toString(), other.getText('budget').toString()]).toEqual(['Museum at 10, lunch at 12', '€900']);
    const before = sent.length;
    const remote = new Y.Doc();
    remote.getText('budget').insert(0, 'x');
    applyRemote(doc, Buffer.from(Y.encodeStateAsUpdate(remote)).toString('base64'));
    expect(sent).toHaveLength(before);
    off();
    editTo(doc, 'plan', 'changed after unsubscribing');
    expect(sent).toHaveLength(before);
  });
});
