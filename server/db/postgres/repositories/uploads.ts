import type { UploadRow, UploadsRepo } from '../../storeInterface';
import type { Runner } from '../connection';

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

export class PgUploads implements UploadsRepo {
  constructor(private readonly db: Runner) {}

  async insert(u: UploadRow): Promise<void> {
    await this.db.run(
      `INSERT INTO uploads (id, session_id, field_id, file_name, content_type, bytes, sha256, storage_path, event_seq, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [u.id, u.sessionId, u.fieldId, u.fileName, u.contentType, u.bytes, u.sha256, u.storagePath, u.eventSeq, u.createdAt],
    );
  }

  async get(id: string): Promise<UploadRow | undefined> {
    const r = await this.db.one<Raw>('SELECT * FROM uploads WHERE id = $1', [id]);
    return r && toRow(r);
  }

  async listForSession(sessionId: string): Promise<UploadRow[]> {
    return (await this.db.rows<Raw>('SELECT * FROM uploads WHERE session_id = $1 ORDER BY created_at, id', [sessionId])).map(toRow);
  }

  async count(): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM uploads'))!.n;
  }
}
