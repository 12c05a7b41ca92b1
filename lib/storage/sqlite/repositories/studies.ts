import { cachedStatement, type SqliteDatabase } from '../database';
import type { StudyStatus } from '../../../../common/http';
import type { StudiesRepo, StudyRow } from '../../contract/store';
import { toStudyRow, type StudyRaw } from '../../rows/studies';
import type { Sync } from '../sync';

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
    const r = cachedStatement(this.db, 'SELECT * FROM studies WHERE id = ?').get(id) as StudyRaw | undefined;
    return r && toStudyRow(r);
  }

  list(): StudyRow[] {
    return (cachedStatement(this.db, 'SELECT * FROM studies ORDER BY id').all() as StudyRaw[]).map(toStudyRow);
  }

  setStatus(id: string, status: StudyStatus, now: number): void {
    cachedStatement(this.db, 'UPDATE studies SET status = ?, updated_at = ? WHERE id = ?').run(status, now, id);
  }
}
