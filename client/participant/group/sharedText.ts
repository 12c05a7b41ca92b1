/**
 * The shared artifact as a Yjs document: one Y.Text per artifact field. Chosen for Yjs because it is the most used,
 * best maintained CRDT for JavaScript (MIT, no server of its own needed): concurrent edits merge without a central
 * transform, updates are small binary diffs that the server stores as they come (so the document rebuilds from the
 * store on any node, after a reload or a restart), and applying an update twice is harmless (resends are safe).
 */
import * as Y from 'yjs';

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** The origin of a local edit's transaction: which field it changed (the server stores each update under one field). */
export interface LocalEdit {
  readonly local: true;
  readonly field: string;
}
const isLocalEdit = (origin: unknown): origin is LocalEdit => typeof origin === 'object' && origin !== null && (origin as LocalEdit).local === true;

/** Applies a stored or relayed update (base64). */
export function applyRemote(doc: Y.Doc, update: string): void {
  Y.applyUpdate(doc, fromBase64(update), 'remote');
}

/** Makes the text of `field` equal `next` with the smallest edit (one delete and one insert), as a local change. */
export function editTo(doc: Y.Doc, field: string, next: string): void {
  const text = doc.getText(field);
  const current = text.toString();
  if (current === next) return;
  let start = 0;
  while (start < current.length && start < next.length && current[start] === next[start]) start++;
  let end = 0;
  while (end < current.length - start && end < next.length - start && current[current.length - 1 - end] === next[next.length - 1 - end]) end++;
  doc.transact(() => {
    text.delete(start, current.length - start - end);
    text.insert(start, next.slice(start, next.length - end));
  }, { local: true, field } satisfies LocalEdit);
}

/**
 * Calls `send` once with each local update (base64) of the document and the field it changed; returns the
 * unsubscribe function. One subscription for the whole document: each edit is sent once, whatever the field count.
 */
export function onLocalUpdate(doc: Y.Doc, send: (update: string, field: string) => void): () => void {
  const handler = (update: Uint8Array, origin: unknown) => {
    if (isLocalEdit(origin)) send(toBase64(update), origin.field);
  };
  doc.on('update', handler);
  return () => doc.off('update', handler);
}
