import type { StoreRepositories } from '../../contract/store';
import type { Runner } from '../connection';
import { PgAdminAuth } from './adminAuth';
import { PgAdminQueries } from './adminQueries';
import { PgAdminSessionList } from './adminSessionList';
import { PgAnnotations } from './annotations';
import { PgArtifacts } from './artifacts';
import { PgAudit } from './audit';
import { PgEvents } from './events';
import { PgIdentities } from './identities';
import { PgJudgements } from './judgements';
import { PgGroupJudgements } from './groupJudgements';
import { PgMessages } from './messages';
import { PgParticipantTokens } from './participantTokens';
import { PgReplyProgress } from './replyProgress';
import { PgSessions } from './sessions';
import { PgSessionTelemetry } from './sessionTelemetry';
import { PgStudies } from './studies';
import { PgSurveyAnswers } from './surveyAnswers';
import { PgUploads } from './uploads';
import { PgWithdrawals } from './withdrawals';
import { PgReviews } from './reviews';
import { PgReplyLeases } from './replyLeases';
import { PgAdminJobs } from './adminJobs';
import { PgPreregistrations } from './preregistrations';
import { PgGroups } from './groups';

/** Every repository over one runner (the pool, or one transaction's client). Built on first use. */
export class PgRepositories implements StoreRepositories {
  constructor(protected readonly runner: Runner) {}

  #studies?: PgStudies;
  #sessions?: PgSessions;
  #identities?: PgIdentities;
  #tokens?: PgParticipantTokens;
  #events?: PgEvents;
  #messages?: PgMessages;
  #artifacts?: PgArtifacts;
  #uploads?: PgUploads;
  #surveyAnswers?: PgSurveyAnswers;
  #replyProgress?: PgReplyProgress;
  #judgements?: PgJudgements;
  #groupJudgements?: PgGroupJudgements;
  #annotations?: PgAnnotations;
  #audit?: PgAudit;
  #adminAuth?: PgAdminAuth;
  #adminQueries?: PgAdminQueries;
  #sessionList?: PgAdminSessionList;
  #withdrawals?: PgWithdrawals;
  #telemetry?: PgSessionTelemetry;
  #reviews?: PgReviews;
  #replyLeases?: PgReplyLeases;
  #adminJobs?: PgAdminJobs;
  #preregistrations?: PgPreregistrations;
  #groups?: PgGroups;

  get studies() { return (this.#studies ??= new PgStudies(this.runner)); }
  get sessions() { return (this.#sessions ??= new PgSessions(this.runner)); }
  get identities() { return (this.#identities ??= new PgIdentities(this.runner)); }
  get tokens() { return (this.#tokens ??= new PgParticipantTokens(this.runner)); }
  get events() { return (this.#events ??= new PgEvents(this.runner)); }
  get messages() { return (this.#messages ??= new PgMessages(this.runner)); }
  get artifacts() { return (this.#artifacts ??= new PgArtifacts(this.runner)); }
  get uploads() { return (this.#uploads ??= new PgUploads(this.runner)); }
  get surveyAnswers() { return (this.#surveyAnswers ??= new PgSurveyAnswers(this.runner)); }
  get replyProgress() { return (this.#replyProgress ??= new PgReplyProgress(this.runner)); }
  get judgements() { return (this.#judgements ??= new PgJudgements(this.runner)); }
  get groupJudgements() { return (this.#groupJudgements ??= new PgGroupJudgements(this.runner)); }
  get annotations() { return (this.#annotations ??= new PgAnnotations(this.runner)); }
  get audit() { return (this.#audit ??= new PgAudit(this.runner)); }
  get adminAuth() { return (this.#adminAuth ??= new PgAdminAuth(this.runner)); }
  get adminQueries() { return (this.#adminQueries ??= new PgAdminQueries(this.runner)); }
  get sessionList() { return (this.#sessionList ??= new PgAdminSessionList(this.runner)); }
  get withdrawals() { return (this.#withdrawals ??= new PgWithdrawals(this.runner)); }
  get telemetry() { return (this.#telemetry ??= new PgSessionTelemetry(this.runner)); }
  get reviews() { return (this.#reviews ??= new PgReviews(this.runner)); }
  get replyLeases() { return (this.#replyLeases ??= new PgReplyLeases(this.runner)); }
  get adminJobs() { return (this.#adminJobs ??= new PgAdminJobs(this.runner)); }
  get preregistrations() { return (this.#preregistrations ??= new PgPreregistrations(this.runner)); }
  get groups() { return (this.#groups ??= new PgGroups(this.runner)); }
}
