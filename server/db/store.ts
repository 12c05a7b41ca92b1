import path from 'node:path';
import { openDatabase, type SqliteDatabase } from './database';
import { migrate } from './migrate';
import { StudiesRepository } from './repositories/studies';
import { SessionsRepository } from './repositories/sessions';
import { IdentitiesRepository } from './repositories/identities';
import { ParticipantTokensRepository } from './repositories/participantTokens';
import { EventsRepository } from './repositories/events';
import { MessagesRepository } from './repositories/messages';
import { ArtifactsRepository } from './repositories/artifacts';
import { UploadsRepository } from './repositories/uploads';
import { SurveyAnswersRepository } from './repositories/surveyAnswers';
import { ReplyProgressRepository } from './repositories/replyProgress';

/**
 * The one storage interface the services use. All repositories are synchronous (better-sqlite3);
 * `transaction(fn)` runs fn atomically — derived rows are written in the same transaction as their event.
 * No SQL lives outside server/db/.
 */
export interface Store {
  readonly studies: StudiesRepository;
  readonly sessions: SessionsRepository;
  readonly identities: IdentitiesRepository;
  readonly tokens: ParticipantTokensRepository;
  readonly events: EventsRepository;
  readonly messages: MessagesRepository;
  readonly artifacts: ArtifactsRepository;
  readonly uploads: UploadsRepository;
  readonly surveyAnswers: SurveyAnswersRepository;
  /** Crash checkpoints of replies while they stream (see services/replyCheckpoint.ts). */
  readonly replyProgress: ReplyProgressRepository;
  /** Runs fn in one transaction (nested calls join the outer one via savepoints). */
  transaction<T>(fn: () => T): T;
  /**
   * The raw connection, for repositories in server/db/repositories/ only (e.g. judgements, annotations:
   * `new JudgementsRepository(store.db)`). Services never touch it.
   */
  readonly db: SqliteDatabase;
  /** Absolute path of the SQLite file. */
  readonly file: string;
  close(): void;
}

export const DATABASE_FILE_NAME = 'tandem.sqlite';

/** Opens <dataDir>/tandem.sqlite, applies pending migrations (001–029, all areas) and returns the store. */
export function openStore(dataDir: string): Store {
  const file = path.resolve(dataDir, DATABASE_FILE_NAME);
  const db = openDatabase(file);
  migrate(db);
  return createStore(db, file);
}

export function createStore(db: SqliteDatabase, file: string): Store {
  return {
    studies: new StudiesRepository(db),
    sessions: new SessionsRepository(db),
    identities: new IdentitiesRepository(db),
    tokens: new ParticipantTokensRepository(db),
    events: new EventsRepository(db),
    messages: new MessagesRepository(db),
    artifacts: new ArtifactsRepository(db),
    uploads: new UploadsRepository(db),
    surveyAnswers: new SurveyAnswersRepository(db),
    replyProgress: new ReplyProgressRepository(db),
    transaction: <T>(fn: () => T): T => db.transaction(fn)(),
    db,
    file,
    close: () => {
      if (db.open) db.close();
    },
  };
}
