import type { UploadRow, UploadsRepo } from '../../contract/store';
import { toUpload, uploadValues, type UploadRaw } from '../../rows/uploads';
import type { Runner } from '../connection';

export class PgUploads implements UploadsRepo {
  constructor(private readonly db: Runner) {}

  async insert(u: UploadRow): Promise<void> {
    await this.db.run(
      `INSERT INTO uploads (id, session_id, field_id, file_name, content_type, bytes, sha256, storage_path, event_seq, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      uploadValues(u),
    );
  }

  async get(id: string): Promise<UploadRow | undefined> {
    const r = await this.db.one<UploadRaw>('SELECT * FROM uploads WHERE id = $1', [id]);
    return r && toUpload(r);
  }

  async listForSession(sessionId: string): Promise<UploadRow[]> {
    return (await this.db.rows<UploadRaw>('SELECT * FROM uploads WHERE session_id = $1 ORDER BY created_at, id', [sessionId])).map(toUpload);
  }

  async count(): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM uploads'))!.n;
  }
}
