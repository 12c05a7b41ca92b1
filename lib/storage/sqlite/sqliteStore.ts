/**
 * The embedded SQLite store: the async store contract (../contract/store.ts) over one better-sqlite3
 * connection. Statements run synchronously inside the promise (prepared once per connection).
 *
 * Transactions. `transaction(async tx => …)` may stay open across awaits, so other work must not slip
 * into it on the shared connection: the TransactionGate serialises. While a transaction is open, every
 * operation on the Store waits until it has committed or rolled back; operations on `tx` run at once.
 * A transaction begins with BEGIN IMMEDIATE (takes the write lock up front, so a second process waits on
 * busy_timeout at BEGIN instead of failing at its first write) and ends with COMMIT or ROLLBACK; a nested
 * `tx.transaction` is a SAVEPOINT. Calling the Store (not `tx`) from inside a transaction would wait for
 * itself forever (and on PostgreSQL would run on another connection); under the test runner (or with
 * TANDEM_STORE_CHECKS=1) that mistake throws at once instead. The check needs an AsyncLocalStorage, which
 * in Node 20 slows every promise in the process (measured 3×), so production runs without it.
 * With no transaction open an operation runs synchronously with no extra await beyond the promise.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import path from 'node:path';
import type { Logger } from 'pino';
import { openDatabase, cachedStatement, type SqliteDatabase } from './database';
import { migrate } from './migrate';
import { startWalCheckpointer } from './walCheckpointer';
import {
  type ModelReplyCache,
  type Store,
  type StoreMaintenance,
  type StoreRepositories,
  type StoreTable,
  type StoreTx,
} from '../contract/store';
import type { Sync } from './sync';
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
import { JudgementsRepository } from './repositories/judgements';
import { GroupJudgementsRepository } from './repositories/groupJudgements';
import { AnnotationsRepository } from './repositories/annotations';
import { AuditRepository } from './repositories/audit';
import { AdminAuthRepository } from './repositories/adminAuth';
import { AdminQueriesRepository } from './repositories/adminQueries';
import { AdminSessionListRepository } from './repositories/adminSessionList';
import { WithdrawalsRepository } from './repositories/withdrawals';
import { SessionTelemetryRepository } from './repositories/sessionTelemetry';
import { ReviewsRepository } from './repositories/reviews';
import { ReplyLeasesRepository } from './repositories/replyLeases';
import { AdminJobsRepository } from './repositories/adminJobs';
import { PreregistrationsRepository } from './repositories/preregistrations';
import { GroupsRepository } from './repositories/groups';
import { InProcessLocks } from './locks';
import { sqlitePseudonymKey } from './repositories/pseudonymKey';
import { openSqliteExportSnapshot } from './exportSnapshot';
import { openFileReplyCache, REPLY_CACHE_FILE_NAME } from './replyCache';
import type { UserMessageAck } from '../contract/userMessageAck';
import type { DraftSave } from '../contract/draftSave';
import type { ArtifactSubmission } from '../contract/artifactSubmit';
import type { SurveySubmission } from '../contract/surveySubmit';
import { acknowledgeUserMessageSync } from './userMessageAck';
import { saveDraftSync } from './draftSave';
import { submitArtifactSync } from './artifactSubmit';
import { submitSurveySync } from './surveySubmit';
import { storeAssistantReplySync } from './assistantReplyWrite';
import type { AssistantReplyWrite } from '../contract/assistantReplyWrite';
import { SCHEMA_SQL } from '../sql/schema';

type SyncRepositories = { [K in keyof StoreRepositories]: Sync<StoreRepositories[K]> };

function syncRepositories(db: SqliteDatabase): SyncRepositories {
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
    judgements: new JudgementsRepository(db),
    groupJudgements: new GroupJudgementsRepository(db),
    annotations: new AnnotationsRepository(db),
    audit: new AuditRepository(db),
    adminAuth: new AdminAuthRepository(db),
    adminQueries: new AdminQueriesRepository(db),
    sessionList: new AdminSessionListRepository(db),
    withdrawals: new WithdrawalsRepository(db),
    telemetry: new SessionTelemetryRepository(db),
    reviews: new ReviewsRepository(db),
    replyLeases: new ReplyLeasesRepository(db),
    adminJobs: new AdminJobsRepository(db),
    preregistrations: new PreregistrationsRepository(db),
    groups: new GroupsRepository(db),
  };
}

type Runner = <R>(op: () => R) => Promise<R>;

/** A promise of op's result (or of its exception), without another tick. */
function settle<R>(op: () => R): Promise<R> {
  try {
    return Promise.resolve(op());
  } catch (err) {
    return Promise.reject(err as Error);
  }
}

/** Method names by prototype: a transaction wraps repositories too, and walking prototypes each time showed in profiles. */
const methodNamesByPrototype = new WeakMap<object, string[]>();

function methodNames(obj: object): string[] {
  const proto = Object.getPrototypeOf(obj) as object;
  let cached = methodNamesByPrototype.get(proto);
  if (!cached) methodNamesByPrototype.set(proto, (cached = ownMethodNames(obj)));
  return cached;
}

function ownMethodNames(obj: object): string[] {
  const names = new Set<string>();
  for (let p = Object.getPrototypeOf(obj) as object | null; p && p !== Object.prototype; p = Object.getPrototypeOf(p) as object | null) {
    for (const n of Object.getOwnPropertyNames(p)) if (n !== 'constructor' && typeof (obj as Record<string, unknown>)[n] === 'function') names.add(n);
  }
  return [...names];
}

/** The async repository over a synchronous one: each method runs through `run`. */
function asyncRepository<T>(impl: Sync<T>, run: Runner): T {
  const out: Record<string, unknown> = {};
  const target = impl as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of methodNames(impl as object)) {
    const method = target[name]!;
    out[name] = (...args: unknown[]) => run(() => method.apply(impl, args));
  }
  return out as T;
}

function asyncRepositories(sync: SyncRepositories, run: Runner): StoreRepositories {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(sync)) out[k] = asyncRepository(v as Sync<unknown>, run);
  return out as unknown as StoreRepositories;
}

/**
 * The repositories of one transaction, each wrapped on first use: a transaction touches two or three of the
 * eighteen, and wrapping them all per transaction cost ~2% of the server's CPU at 1000 participants.
 */
function lazyRepositories(sync: SyncRepositories, run: Runner): StoreRepositories {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(sync) as (keyof SyncRepositories)[]) {
    let repo: unknown;
    Object.defineProperty(out, k, { enumerable: true, get: () => (repo ??= asyncRepository(sync[k] as Sync<unknown>, run)) });
  }
  return out as unknown as StoreRepositories;
}

/** One open transaction: its identity marks the async context that runs it. */
interface OpenTransaction {
  done: Promise<void>;
  savepoints: number;
  ended: boolean;
}

/** Whether to catch a Store call made inside its own transaction (tests; see the file comment). */
const CHECK_NESTING = process.env.TANDEM_STORE_CHECKS === '1' || process.env.VITEST !== undefined;

/** Serialises transactions on the one connection (see the file comment). */
class TransactionGate {
  private current: OpenTransaction | null = null;
  private readonly context = CHECK_NESTING ? new AsyncLocalStorage<OpenTransaction>() : null;
  closed = false;

  constructor(private readonly db: SqliteDatabase) {}

  /** Runs a Store operation now, or after the open transaction ends. */
  readonly outside: Runner = <R>(op: () => R): Promise<R> => {
    if (this.closed) return Promise.reject(new Error('the store is closed'));
    if (this.current === null) return settle(op);
    if (this.context !== null && this.context.getStore() === this.current)
      return Promise.reject(new Error('a Store method was called inside store.transaction(): use the transaction’s tx instead (it would wait for itself)'));
    return this.afterTransactions().then(() => {
      if (this.closed) throw new Error('the store is closed');
      return op();
    });
  };

  /** Resolves when no transaction is open (several may be queued; each waiter re-checks). */
  async afterTransactions(): Promise<void> {
    while (this.current !== null) await this.current.done;
  }

  async transaction<T>(fn: (tx: StoreTx) => Promise<T>, makeTx: (open: OpenTransaction) => StoreTx): Promise<T> {
    if (this.current !== null && this.context !== null && this.context.getStore() === this.current)
      throw new Error('store.transaction() was called inside another: use tx.transaction() for a nested one');
    // No await when nothing is open: the transaction takes the gate synchronously (close() then waits for it).
    while (this.current !== null) await this.current.done;
    if (this.closed) throw new Error('the store is closed');
    let release!: () => void;
    const open: OpenTransaction = { done: new Promise<void>((r) => (release = r)), savepoints: 0, ended: false };
    this.current = open;
    try {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const tx = makeTx(open);
        const result = await (this.context ? this.context.run(open, () => fn(tx)) : fn(tx));
        this.db.exec('COMMIT');
        return result;
      } catch (err) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw err;
      }
    } finally {
      open.ended = true;
      this.current = null;
      release();
    }
  }
}

export interface SqliteStore extends Store {
  readonly engine: 'sqlite';
  /** Absolute path of the SQLite file. */
  readonly file: string;
}

/** Opens (creating if needed) the SQLite file, applies pending migrations and returns the store. */
export async function openSqliteStore(file: string): Promise<SqliteStore> {
  const db = openDatabase(file);
  try {
    migrate(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return createSqliteStore(db, file);
}

export function createSqliteStore(db: SqliteDatabase, file: string): SqliteStore {
  const gate = new TransactionGate(db);
  const sync = syncRepositories(db);
  const repos = asyncRepositories(sync, gate.outside);

  const makeTx = (open: OpenTransaction): StoreTx => {
    const inTx: Runner = <R>(op: () => R): Promise<R> =>
      open.ended ? Promise.reject(new Error('this transaction has already ended: tx was used after its callback returned')) : settle(op);
    const tx = lazyRepositories(sync, inTx) as StoreTx;
    Object.assign(tx, {
      transaction: async <T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> => {
        if (open.ended) throw new Error('this transaction has already ended');
        const name = `sp${++open.savepoints}`;
        db.exec(`SAVEPOINT ${name}`);
        try {
          const result = await fn(tx);
          db.exec(`RELEASE ${name}`);
          return result;
        } catch (err) {
          if (db.inTransaction) db.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
          throw err;
        }
      },
    });
    return tx;
  };

  // One synchronous BEGIN IMMEDIATE … COMMIT: no await between the checks and the writes.
  const acknowledge = db.transaction((a: UserMessageAck) => acknowledgeUserMessageSync(db, sync, a));
  const storeReply = db.transaction((w: AssistantReplyWrite) => storeAssistantReplySync(sync, w));
  const saveDraft = db.transaction((d: DraftSave) => saveDraftSync(sync, d));
  const submitArtifact = db.transaction((w: ArtifactSubmission) => submitArtifactSync(sync, w));
  const submitSurvey = db.transaction((w: SurveySubmission) => submitSurveySync(sync, w));

  const store: SqliteStore = {
    ...repos,
    engine: 'sqlite',
    // One connection whose statements run at once: nothing to jump ahead of.
    get interactive(): Store {
      return store;
    },
    description: file,
    file,
    locks: new InProcessLocks(),
    pseudonymKey: sqlitePseudonymKey(db, gate.outside),
    transaction: <T>(fn: (tx: StoreTx) => Promise<T>) => gate.transaction(fn, makeTx),
    acknowledgeUserMessage: (a: UserMessageAck) => gate.outside(() => acknowledge.immediate(a)),
    storeAssistantReply: (w: AssistantReplyWrite) => gate.outside(() => storeReply.immediate(w)),
    saveDraft: (d: DraftSave) => gate.outside(() => saveDraft.immediate(d)),
    submitArtifact: (w: ArtifactSubmission) => gate.outside(() => submitArtifact.immediate(w)),
    submitSurvey: (w: SurveySubmission) => gate.outside(() => submitSurvey.immediate(w)),
    // Synchronous reads in a row: one consistent view without a transaction.
    readSessionState: (sessionId: string) =>
      gate.outside(() => {
        const session = sync.sessions.get(sessionId);
        if (!session) return undefined;
        return {
          session,
          draft: sync.artifacts.getDraft(sessionId),
          messages: sync.messages.listForSession(sessionId),
          uploads: sync.uploads.listForSession(sessionId),
          versions: sync.artifacts.listVersions(sessionId),
          surveySubmitted: sync.surveyAnswers.hasAnswers(sessionId),
        };
      }),
    openExportSnapshot: () => settle(() => openSqliteExportSnapshot(file)),
    openReplyCache: (): Promise<ModelReplyCache> => settle(() => openFileReplyCache(path.join(path.dirname(file), REPLY_CACHE_FILE_NAME))),
    countRows: () =>
      gate.outside(() => {
        const rows = cachedStatement(db, SCHEMA_SQL.countRows.sqlite).all() as { t: StoreTable; n: number }[];
        return Object.fromEntries(rows.map((r) => [r.t, r.n])) as Record<StoreTable, number>;
      }),
    schemaVersion: () =>
      gate.outside(() => (cachedStatement(db, SCHEMA_SQL.schemaVersion.sqlite).get() as { v: number }).v),
    // WAL checkpoints (the only fsyncs with synchronous=NORMAL) run on a worker, not inside a participant's commit.
    startMaintenance: (log: Logger): StoreMaintenance => startWalCheckpointer(db, file, { log }),
    close: async () => {
      await gate.afterTransactions();
      gate.closed = true;
      if (db.open) db.close();
    },
  };
  return store;
}
