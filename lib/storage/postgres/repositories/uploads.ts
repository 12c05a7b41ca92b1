import type { UploadRow, UploadsRepo } from '../../contract/store';
import { toUpload, uploadValues, type UploadRaw } from '../../rows/uploads';
import { UPLOAD_SQL } from '../../sql/participants';
import type { Runner } from '../connection';

export class PgUploads implements UploadsRepo {
  constructor(private readonly db: Runner) {}

  async insert(u: UploadRow): Promise<void> {
    await this.db.run(UPLOAD_SQL.insert.postgres, uploadValues(u));
  }

  async get(id: string): Promise<UploadRow | undefined> {
    const r = await this.db.one<UploadRaw>(UPLOAD_SQL.get.postgres, [id]);
    return r && toUpload(r);
  }

  async listForSession(sessionId: string): Promise<UploadRow[]> {
    return (await this.db.rows<UploadRaw>(UPLOAD_SQL.listForSession.postgres, [sessionId])).map(toUpload);
  }

  async count(): Promise<number> {
    return (await this.db.one<{ n: number }>(UPLOAD_SQL.count.postgres))!.n;
  }
}
