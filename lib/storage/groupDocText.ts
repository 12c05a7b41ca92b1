/**
 * A group's shared document from its stored Yjs updates (group_doc_updates, in seq order): each text field of the
 * task is a `Y.Text` named by the field id. Used by the monitor (live view) and the judge (the judged text).
 */
import * as Y from 'yjs';
import type { GroupDocUpdateRow } from './contract/groups';

export interface GroupDocument {
  /** The whole Yjs state, base64. */
  state: string;
  /** The text of every field that has an update, by field id (sorted). */
  fields: Array<{ field: string; text: string }>;
}

export function groupDocument(updates: readonly GroupDocUpdateRow[]): GroupDocument {
  const doc = new Y.Doc();
  const fields = new Set<string>();
  for (const u of updates) {
    fields.add(u.fieldId);
    try {
      Y.applyUpdate(doc, Buffer.from(u.update, 'base64'));
    } catch {
      // Every stored update was decoded when it came in; a bad one would only be skipped here.
    }
  }
  const out = {
    state: Buffer.from(Y.encodeStateAsUpdate(doc)).toString('base64'),
    fields: [...fields].sort().map((field) => ({ field, text: doc.getText(field).toString() })),
  };
  doc.destroy();
  return out;
}
