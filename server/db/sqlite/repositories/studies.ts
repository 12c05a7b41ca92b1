import { cachedStatement, type SqliteDatabase } from '../../database';
import type { StudyStatus } from '../../../../common/http';
import type { StudiesRepo, StudyRow } from '../../storeInterface';
import type { Sync } from '../sync';

interface Raw {
  id: string;
  title: string;
  status: StudyStatus;
  definition_hash: string;
  created_at: number;
  updated_at: number;
}
const toRow = (r: Raw): StudyRow => ({
  id: r.id,
  title: r.title,
  status: r.status,
  definitionHash: r.definition_hash,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export class StudiesRepository implements Sync<StudiesRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  /** Records a loaded study file. New studies start with `initialStatus`; an existing row keeps its status. */
  upsertLoaded(id: string, title: string, definitionHash: string, initialStatus: StudyStatus, now: number): StudyRow {
    this.db
      .prepare(
        `INSERT INTO studies (id, title, status, definition_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET title = excluded.title, definition_hash = excluded.definition_hash,
           updated_at = CASE WHEN studies.definition_hash = excluded.definition_hash THEN studies.updated_at ELSE excluded.updated_at END`,
      )
      .run(id, title, initialStatus, definitionHash, now, now);
    return this.get(id)!;
  }

  get(id: string): StudyRow | undefined {
    const r = cachedStatement(this.db, 'SELECT * FROM studies WHERE id = ?').get(id) as Raw | undefined;
    return r && toRow(r);
  }

  list(): StudyRow[] {
    return (cachedStatement(this.db, 'SELECT * FROM studies ORDER BY id').all() as Raw[]).map(toRow);
  }

  setStatus(id: string, status: StudyStatus, now: number): void {
    cachedStatement(this.db, 'UPDATE studies SET status = ?, updated_at = ? WHERE id = ?').run(status, now, id);
  }
}
