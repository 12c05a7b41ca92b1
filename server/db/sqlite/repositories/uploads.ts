import { cachedStatement, type SqliteDatabase } from '../../database';
import type { UploadRow, UploadsRepo } from '../../storeInterface';
import type { Sync } from '../sync';

interface Raw {
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
const toRow = (r: Raw): UploadRow => ({
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

export class UploadsRepository implements Sync<UploadsRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  insert(u: UploadRow): void {
    this.db
      .prepare(
        `INSERT INTO uploads (id, session_id, field_id, file_name, content_type, bytes, sha256, storage_path, event_seq, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(u.id, u.sessionId, u.fieldId, u.fileName, u.contentType, u.bytes, u.sha256, u.storagePath, u.eventSeq, u.createdAt);
  }

  get(id: string): UploadRow | undefined {
    const r = cachedStatement(this.db, 'SELECT * FROM uploads WHERE id = ?').get(id) as Raw | undefined;
    return r && toRow(r);
  }

  listForSession(sessionId: string): UploadRow[] {
    return (cachedStatement(this.db, 'SELECT * FROM uploads WHERE session_id = ? ORDER BY created_at, id').all(sessionId) as Raw[]).map(toRow);
  }

  count(): number {
    return (cachedStatement(this.db, 'SELECT COUNT(*) AS n FROM uploads').get() as { n: number }).n;
  }
}
