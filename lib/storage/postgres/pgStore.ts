/**
 * The PostgreSQL store: the engine-neutral Store contract (lib/storage/contract/store.ts) over a node-postgres
 * pool. Selected by DATABASE_URL=postgres://… (lib/storage/openStore.ts). Several server nodes may share one
 * database: nothing here keeps state in process memory that another node would need.
 *
 * - Calls on the store run on any pooled connection, each its own implicit transaction.
 * - `transaction(fn)` runs fn on one checked-out client between BEGIN and COMMIT (READ COMMITTED; the
 *   exactly-once rules rest on unique constraints, ON CONFLICT and the per-session row lock of
 *   tandem_append_event). Nested `tx.transaction` calls are savepoints.
 * - A connection failure (PostgreSQL restarting, network cut) rejects with StoreUnavailableError (retryable);
 *   the pool drops broken connections and opens new ones on the next call, so the store recovers by itself.
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import { type ExportSnapshot, type ModelReplyCache, type Store, type StoreMaintenance, type StoreTable, type StoreTx } from '../contract/store';
import { ClientRunner, createPool, PoolRunner, withTransaction } from './connection';
import { DatabaseConnectError, describeConnectError, redactUrl, toStoreError } from './errors';
import { openPgExportSnapshot } from './exportSnapshot';
import { migratePostgres } from './migrate';
import { PgReplyCache } from './replyCache';
import { PgRepositories } from './repositories';
import type { UserMessageAck, UserMessageAckResult } from '../contract/userMessageAck';
import type { DraftSave, DraftSaveResult } from '../contract/draftSave';
import type { ArtifactSubmission, ArtifactSubmitResult } from '../contract/artifactSubmit';
import type { SurveySubmission, SurveySubmitResult } from '../contract/surveySubmit';
import { acknowledgeUserMessage } from './userMessageAck';
import { saveDraft } from './draftSave';
import { submitArtifact } from './artifactSubmit';
import { submitSurvey } from './surveySubmit';
import { storeAssistantReply } from './assistantReplyWrite';
import type { AssistantReplyWrite, AssistantReplyWriteResult } from '../contract/assistantReplyWrite';
import type { SessionStateRows } from '../contract/sessionState';
import { readSessionState } from './sessionState';
import { PgNamedLocks } from './locks';
import { SCHEMA_SQL } from '../sql/schema';
import { PgPseudonymKey } from './repositories/pseudonymKey';

export interface PostgresStoreOptions {
  /** Pool size (default 10, or PGPOOL_MAX). */
  poolSize?: number;
  /** Size of the separate pool of `store.interactive` (default 20, or PGPOOL_INTERACTIVE_MAX). */
  interactivePoolSize?: number;
  /** Receives errors of idle connections (logged by the server; they are replaced automatically). */
  onConnectionError?: (err: Error) => void;
}

class PgTx extends PgRepositories implements StoreTx {
  private savepoints = 0;
  constructor(private readonly client: pg.PoolClient) {
    super(new ClientRunner(client));
  }

  async transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    const name = `sp_${++this.savepoints}`;
    await this.runner.run(`SAVEPOINT ${name}`);
    try {
      const result = await fn(this);
      await this.runner.run(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (err) {
      await this.client.query(`ROLLBACK TO SAVEPOINT ${name}`).catch(() => undefined);
      throw err;
    }
  }
}

class PgStore extends PgRepositories implements Store {
  readonly engine = 'postgres' as const;
  readonly description: string;
  /** The same database over a pool of its own (see Store.interactive); this store itself when it is that view. */
  readonly interactive: Store;
  readonly locks: PgNamedLocks;
  readonly pseudonymKey: PgPseudonymKey;
  private closed = false;
  private log: Logger | undefined;

  constructor(
    private readonly pool: pg.Pool,
    url: string,
    onConnectionError: ((err: Error) => void) | undefined,
    /** The pool of the interactive view; none when this store is that view. */
    interactivePool?: pg.Pool,
  ) {
    super(new PoolRunner(pool));
    this.description = redactUrl(url);
    this.locks = new PgNamedLocks(pool);
    this.pseudonymKey = new PgPseudonymKey(new PoolRunner(pool));
    this.interactive = interactivePool ? new PgStore(interactivePool, url, onConnectionError) : this;
    // Idle connections cut by a restart: dropped by the pool (replaced on the next call); worth a log line.
    pool.on('error', (err) => {
      onConnectionError?.(err);
      this.log?.warn({ err: err.message, database: this.description }, 'PostgreSQL connection lost; the pool reconnects');
    });
  }

  /** PostgreSQL does its own upkeep (autovacuum, checkpoints); the server's logger gets pool faults. */
  startMaintenance(log: Logger): StoreMaintenance {
    this.log = log;
    const view = this.interactive === this ? undefined : this.interactive.startMaintenance(log);
    return {
      stop: async () => {
        this.log = undefined;
        await view?.stop();
      },
    };
  }

  transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    this.assertOpen();
    return withTransaction(this.pool, (client) => fn(new PgTx(client)));
  }

  acknowledgeUserMessage(ack: UserMessageAck): Promise<UserMessageAckResult> {
    this.assertOpen();
    return acknowledgeUserMessage(this.runner, ack);
  }

  saveDraft(save: DraftSave): Promise<DraftSaveResult> {
    this.assertOpen();
    return saveDraft(this.runner, save);
  }

  submitArtifact(submission: ArtifactSubmission): Promise<ArtifactSubmitResult> {
    this.assertOpen();
    return submitArtifact(this.runner, submission);
  }

  submitSurvey(submission: SurveySubmission): Promise<SurveySubmitResult> {
    this.assertOpen();
    return submitSurvey(this.runner, submission);
  }

  storeAssistantReply(write: AssistantReplyWrite): Promise<AssistantReplyWriteResult> {
    this.assertOpen();
    return storeAssistantReply(this.runner, write);
  }

  readSessionState(sessionId: string): Promise<SessionStateRows | undefined> {
    this.assertOpen();
    return readSessionState(this.runner, sessionId);
  }

  openExportSnapshot(): Promise<ExportSnapshot> {
    this.assertOpen();
    return openPgExportSnapshot(this.pool);
  }

  async openReplyCache(): Promise<ModelReplyCache> {
    this.assertOpen();
    return new PgReplyCache(this.pool);
  }

  async countRows(): Promise<Record<StoreTable, number>> {
    this.assertOpen();
    const rows = await this.runner.rows<{ t: StoreTable; n: number }>(SCHEMA_SQL.countRows.postgres);
    return Object.fromEntries(rows.map((r) => [r.t, r.n])) as Record<StoreTable, number>;
  }

  async schemaVersion(): Promise<number> {
    this.assertOpen();
    return (await this.runner.one<{ v: number }>(SCHEMA_SQL.schemaVersion.postgres))?.v ?? 0;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.interactive !== this) await this.interactive.close();
    await this.pool.end();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`the PostgreSQL store ${this.description} is closed`);
  }
}

/**
 * Connects, applies pending migrations and returns the store. When the database cannot be reached (or
 * refuses the login) it rejects with DatabaseConnectError whose message is one line naming host, port and
 * the driver's reason; print `err.message` and exit (see describeStartupError in ./index).
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<Store> {
  const pool = createPool(url, { max: options.poolSize });
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new DatabaseConnectError(describeConnectError(url, err), { cause: err });
  }
  try {
    await migratePostgres(pool);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw toStoreError(err, 'migrate');
  }
  // Opens its connections on first use (a store that never acknowledges a chat message opens none).
  const interactivePool = createPool(url, { max: options.interactivePoolSize ?? (Number(process.env.PGPOOL_INTERACTIVE_MAX) || 20) });
  return new PgStore(pool, url, options.onConnectionError, interactivePool);
}
