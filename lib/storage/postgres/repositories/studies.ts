import type { StudyStatus } from '../../../../common/http';
import type { StudiesRepo, StudyRow } from '../../contract/store';
import { toStudyRow, type StudyRaw } from '../../rows/studies';
import { STUDY_SQL } from '../../sql/participants';
import type { Runner } from '../connection';

export class PgStudies implements StudiesRepo {
  constructor(private readonly db: Runner) {}

  /** Several nodes may load the same study file at once: the upsert is one statement, so the row is written once. */
  async upsertLoaded(id: string, title: string, definitionHash: string, initialStatus: StudyStatus, now: number): Promise<StudyRow> {
    return toStudyRow((await this.db.one<StudyRaw>(STUDY_SQL.upsertLoaded.postgres, [id, title, initialStatus, definitionHash, now, now]))!);
  }

  async get(id: string): Promise<StudyRow | undefined> {
    const r = await this.db.one<StudyRaw>(STUDY_SQL.get.postgres, [id]);
    return r && toStudyRow(r);
  }

  async list(): Promise<StudyRow[]> {
    return (await this.db.rows<StudyRaw>(STUDY_SQL.list.postgres)).map(toStudyRow);
  }

  async setStatus(id: string, status: StudyStatus, now: number): Promise<void> {
    await this.db.run(STUDY_SQL.setStatus.postgres, [status, now, id]);
  }
}
