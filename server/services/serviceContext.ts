import type { Logger } from 'pino';
import type { SessionRow, Store, StoreRepositories } from '../../lib/storage';
import type { LoadedConfig, StudyDefinition } from '../../lib/studyFiles/studyConfig';
import type { LlmProvider } from '../../lib/llm/provider';
import type { Condition, Task } from '../../common/study';
import type { LoadedSurvey } from '../../common/survey';
import type { ErrorCode } from '../../common/envelope';
import type { ServerPushName, ServerPush } from '../../common/events';
import type { StoragePolicy } from './storagePolicy';
import type { ReviewRow } from '../../lib/storage';
import type { InFlight } from './inFlightReply';
import type { ReplyRunOptions } from './replyRunOptions';

/** Which provider answers a condition. `offline` marks the built-in demo assistant (shown as such). */
export interface ResolvedProvider {
  provider: LlmProvider;
  offline: boolean;
}
export type ProviderResolver = (condition: Condition) => ResolvedProvider;

/** Sends a push to every socket of one session. */
export type Pusher = <E extends ServerPushName>(sessionId: string, event: E, payload: ServerPush<E>) => void;

/** Everything a service needs; built once in server/app.ts. */
export interface ServiceContext {
  store: Store;
  config: LoadedConfig;
  dataDir: string;
  /** The pseudonym key of DATA_DIR, checked against the database's fingerprint at start-up (lib/pseudonym.ts). */
  pseudonymKey: Buffer;
  now: () => number;
  rng: () => number;
  log: Logger;
  providers: ProviderResolver;
  push: Pusher;
  /** Per-session storage budget and draft-event interval (default DEFAULT_STORAGE_POLICY). */
  storage?: StoragePolicy;
  /** Disconnects the live sockets of sessions (their tokens were revoked); absent where no socket server runs. */
  sessionSockets?: SessionSockets;
  /** Researcher-in-the-loop replies of `review`/`wizard` conditions (server/wizard/); absent = every reply from the model. */
  wizard?: ReplyDesk;
}

/**
 * Where a `review` or `wizard` condition's replies go instead of straight to the participant: the Wizard-of-Oz
 * desk (server/wizard/) implements it and is registered as a plug-in at start-up, so the services never import it.
 */
export interface ReplyDesk {
  /** Runs the reply through the researcher console (drafting, review, the researcher's own words). */
  run(s: SessionContext, f: InFlight, options: ReplyRunOptions): Promise<void>;
  /**
   * An open review whose node stopped: resumed here through `chat` (true), closed without a reply when its session
   * ended meanwhile, or left to the live node that holds its reply's lease (false).
   */
  resumeOpenReview(review: ReviewRow, chat: ReplyResumer): Promise<boolean>;
}

/** Resumes a reply on this node (the chat service). */
export interface ReplyResumer {
  /** False when it did not (another live node holds the reply's lease, or the session has a reply in flight here). */
  resumeReply(s: SessionContext, replyId: string, replyTo: string): Promise<boolean>;
}

export interface SessionSockets {
  disconnect(sessionIds: readonly string[], reason: 'token_reissued' | 'withdrawn'): void;
}

/** An expected failure with a code the participant's client understands; handlers turn it into an error envelope. */
export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

export interface SessionContext {
  session: SessionRow;
  study: StudyDefinition;
  task: Task;
  condition: Condition;
  survey: LoadedSurvey;
}

/**
 * `ctx` with store.interactive as its store: for work a participant waits for (a chat message's ack, the session's
 * steps), which on PostgreSQL must not queue behind background writes on the main pool (Store.interactive).
 */
export function interactiveContext(ctx: ServiceContext): ServiceContext {
  return { ...ctx, store: ctx.store.interactive };
}

/**
 * Loads a session with its study, task, condition and survey definitions. Inside a transaction pass its
 * `tx` as `db` and `forUpdate` to lock the session row until commit (a state change reads, checks, writes).
 */
export async function loadSession(ctx: ServiceContext, sessionId: string, db: StoreRepositories = ctx.store, forUpdate = false): Promise<SessionContext> {
  const session = await (forUpdate ? db.sessions.getForUpdate(sessionId) : db.sessions.get(sessionId));
  if (!session) throw new ServiceError('not_found', 'session not found');
  return sessionContextOf(ctx, session);
}

/** A session row with its study, task, condition and survey definitions from the loaded configuration. */
export function sessionContextOf(ctx: Pick<ServiceContext, 'config'>, session: SessionRow): SessionContext {
  const study = ctx.config.studies.get(session.studyId);
  if (!study) throw new ServiceError('not_found', `study "${session.studyId}" is no longer configured`);
  const task = study.tasks.find((t) => t.id === session.taskId);
  const condition = study.conditions.find((c) => c.id === session.conditionId);
  const survey = ctx.config.surveys.get(study.survey);
  if (!task || !condition || !survey) throw new ServiceError('internal', 'session refers to a task, condition or survey that is not configured');
  return { session, study, task, condition, survey };
}

/** ms UTC when the session's time limit ends; null before consent. */
export function deadlineOf(s: SessionContext): number | null {
  return s.session.consentedAt === null ? null : s.session.consentedAt + s.study.time_limit_minutes * 60_000;
}
