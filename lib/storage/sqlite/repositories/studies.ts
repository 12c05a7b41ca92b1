import type { StudyStatus } from '../../../../common/http';
import type { StudiesRepo, StudyRow } from '../../contract/store';
import { toStudyRow, type StudyRaw } from '../../rows/studies';
import { STUDY_SQL } from '../../sql/participants';
import { SqliteRepository } from '../statements';
import type { Sync } from '../sync';

export class StudiesRepository extends SqliteRepository implements Sync<StudiesRepo> {
  /** Records a loaded study file. New studies start with `initialStatus`; an existing row keeps its status. */
  upsertLoaded(id: string, title: string, definitionHash: string, initialStatus: StudyStatus, now: number): StudyRow {
    return toStudyRow(this.q.one<StudyRaw>(STUDY_SQL.upsertLoaded, id, title, initialStatus, definitionHash, now, now)!);
  }

  get(id: string): StudyRow | undefined {
    const r = this.q.one<StudyRaw>(STUDY_SQL.get, id);
    return r && toStudyRow(r);
  }

  list(): StudyRow[] {
    return this.q.rows<StudyRaw>(STUDY_SQL.list).map(toStudyRow);
  }

  setStatus(id: string, status: StudyStatus, now: number): void {
    this.q.run(STUDY_SQL.setStatus, status, now, id);
  }
}
