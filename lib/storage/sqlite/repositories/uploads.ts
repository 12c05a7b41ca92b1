import { cachedStatement, type SqliteDatabase } from '../database';
import type { UploadRow, UploadsRepo } from '../../contract/store';
import { toUpload, uploadValues, type UploadRaw } from '../../rows/uploads';
import type { Sync } from '../sync';

export class UploadsRepository implements Sync<UploadsRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  insert(u: UploadRow): void {
    this.db
      .prepare(
        `INSERT INTO uploads (id, session_id, field_id, file_name, content_type, bytes, sha256, storage_path, event_seq, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(...uploadValues(u));
  }

  get(id: string): UploadRow | undefined {
    const r = cachedStatement(this.db, 'SELECT * FROM uploads WHERE id = ?').get(id) as UploadRaw | undefined;
    return r && toUpload(r);
  }

  listForSession(sessionId: string): UploadRow[] {
    return (cachedStatement(this.db, 'SELECT * FROM uploads WHERE session_id = ? ORDER BY created_at, id').all(sessionId) as UploadRaw[]).map(toUpload);
  }

  count(): number {
    return (cachedStatement(this.db, 'SELECT COUNT(*) AS n FROM uploads').get() as { n: number }).n;
  }
}
