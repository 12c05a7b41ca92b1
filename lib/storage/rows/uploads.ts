/** The `uploads` row as both engines return it (the same column types on each), its mapping and insert values. */
import type { UploadRow } from '../contract/store';

export interface UploadRaw {
  id: string;
  session_id: string;
  field_id: string;
  file_name: string;
  content_type: string;
  bytes: number;
  sha256: string;
  storage_path: string;
  event_seq: number;
  created_at: number;
}

export const toUpload = (r: UploadRaw): UploadRow => ({
  id: r.id,
  sessionId: r.session_id,
  fieldId: r.field_id,
  fileName: r.file_name,
  contentType: r.content_type,
  bytes: r.bytes,
  sha256: r.sha256,
  storagePath: r.storage_path,
  eventSeq: r.event_seq,
  createdAt: r.created_at,
});

/** Insert values in the column order id, session_id, field_id, file_name, content_type, bytes, sha256, storage_path, event_seq, created_at. */
export const uploadValues = (u: UploadRow) =>
  [u.id, u.sessionId, u.fieldId, u.fileName, u.contentType, u.bytes, u.sha256, u.storagePath, u.eventSeq, u.createdAt] as const;
