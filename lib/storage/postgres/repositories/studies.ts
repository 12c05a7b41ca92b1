import type { StudyStatus } from '../../../../common/http';
import type { StudiesRepo, StudyRow } from '../../contract/store';
import { toStudyRow, type StudyRaw } from '../../rows/studies';
import type { Runner } from '../connection';

export class PgStudies implements StudiesRepo {
  constructor(private readonly db: Runner) {}

  async upsertLoaded(id: string, title: string, definitionHash: string, initialStatus: StudyStatus, now: number): Promise<StudyRow> {
    // Several nodes may load the same study file at once: the upsert is one statement, so the row is written once.
    const r = await this.db.one<StudyRaw>(
      `INSERT INTO studies (id, title, status, definition_hash, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)
       ON CONFLICT (id) DO UPDATE SET title = excluded.title, definition_hash = excluded.definition_hash,
         updated_at = CASE WHEN studies.definition_hash = excluded.definition_hash THEN studies.updated_at ELSE excluded.updated_at END
       RETURNING *`,
      [id, title, initialStatus, definitionHash, now],
    );
    return toStudyRow(r!);
  }

  async get(id: string): Promise<StudyRow | undefined> {
    const r = await this.db.one<StudyRaw>('SELECT * FROM studies WHERE id = $1', [id]);
    return r && toStudyRow(r);
  }

  async list(): Promise<StudyRow[]> {
    return (await this.db.rows<StudyRaw>('SELECT * FROM studies ORDER BY id')).map(toStudyRow);
  }

  async setStatus(id: string, status: StudyStatus, now: number): Promise<void> {
    await this.db.run('UPDATE studies SET status = $1, updated_at = $2 WHERE id = $3', [status, now, id]);
  }
}
