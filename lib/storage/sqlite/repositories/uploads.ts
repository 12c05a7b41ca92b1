import type { UploadRow, UploadsRepo } from '../../contract/store';
import { toUpload, uploadValues, type UploadRaw } from '../../rows/uploads';
import { UPLOAD_SQL } from '../../sql/participants';
import { SqliteRepository } from '../statements';
import type { Sync } from '../sync';

export class UploadsRepository extends SqliteRepository implements Sync<UploadsRepo> {
  insert(u: UploadRow): void {
    this.q.run(UPLOAD_SQL.insert, ...uploadValues(u));
  }

  get(id: string): UploadRow | undefined {
    const r = this.q.one<UploadRaw>(UPLOAD_SQL.get, id);
    return r && toUpload(r);
  }

  listForSession(sessionId: string): UploadRow[] {
    return this.q.rows<UploadRaw>(UPLOAD_SQL.listForSession, sessionId).map(toUpload);
  }

  count(): number {
    return this.q.one<{ n: number }>(UPLOAD_SQL.count)!.n;
  }
}
