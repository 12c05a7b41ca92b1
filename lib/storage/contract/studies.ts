/**
 * The `studies` table: one row per loaded study file. Part of the storage contract:
 * lib/storage/contract/store.ts re-exports everything here, and code imports it from there.
 */
import type { StudyStatus } from '../../../common/http';

export interface StudyRow {
  id: string;
  title: string;
  status: StudyStatus;
  definitionHash: string;
  createdAt: number;
  updatedAt: number;
}

export interface StudiesRepo {
  /** Records a loaded study file. New studies start with `initialStatus`; an existing row keeps its status. */
  upsertLoaded(id: string, title: string, definitionHash: string, initialStatus: StudyStatus, now: number): Promise<StudyRow>;
  get(id: string): Promise<StudyRow | undefined>;
  list(): Promise<StudyRow[]>;
  setStatus(id: string, status: StudyStatus, now: number): Promise<void>;
}
