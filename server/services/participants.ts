import type { ArtifactDraft, ArtifactSubmit, ChatRetry, ChatSend, ChatStop, ConsentRespond, StepAdvance, SurveySubmit, Telemetry } from '../../common/events';
import type { SessionState } from '../../common/session';
import { ChatService, type ChatServiceOptions } from './chat';
import type { SessionRow } from '../../lib/storage';
import { deadlineOf, interactiveContext, loadSession, sessionContextOf, type ServiceContext, type SessionContext } from './serviceContext';
import { advanceStep, expireIfDue, respondConsent } from './lifecycle';
import { buildSessionState, nothingYet, sessionStateOf } from './sessionState';
import { checkSubmission, saveDraft, submitArtifact } from './artifacts';
import { submitSurvey } from './survey';
import { recordTelemetry } from './telemetry';

/** The part of a session's state its time limit depends on. */
export type SessionTiming = Pick<SessionState, 'status' | 'step' | 'deadline'>;

const timingOf = (s: SessionContext): SessionTiming => ({ status: s.session.status, step: s.session.step, deadline: deadlineOf(s) });

/**
 * One entry point per participant action, used by the socket handlers. Each takes the session id the
 * caller's token is bound to and an already-validated payload.
 */
export class ParticipantService {
  readonly chat: ChatService;

  constructor(
    readonly ctx: ServiceContext,
    chatOptions: ChatServiceOptions = {},
  ) {
    this.chat = new ChatService(ctx, chatOptions);
  }

  /**
   * The context of the steps a participant waits for (interactiveContext), so they go ahead of background writes as
   * chat:send does; telemetry stays on the main store. Made at each call, as wiring adds plug-ins (the wizard desk,
   * the socket registry) to ctx after this service exists.
   */
  private get waited(): ServiceContext {
    return interactiveContext(this.ctx);
  }

  async state(sessionId: string): Promise<SessionState> {
    return buildSessionState(this.waited, sessionId, this.chat.inFlightView(sessionId));
  }

  /** What a time-limit timer needs (one row read, not the whole state): status, step and deadline. */
  async timing(sessionId: string): Promise<SessionTiming> {
    return timingOf(await loadSession(this.waited, sessionId));
  }

  /** The same, from a row already read (a socket's handshake reads the session with its token). */
  timingOfRow(session: SessionRow): SessionTiming {
    return timingOf(sessionContextOf(this.ctx, session));
  }

  /** Applies the time limit; true when the session just timed out (the caller pushes the new state). */
  async expireIfDue(sessionId: string): Promise<boolean> {
    return expireIfDue(this.waited, await loadSession(this.waited, sessionId));
  }

  /** The answer of consent and the instructions' end: from the row the step changed, without a read (see nothingYet). */
  private stateAfter(sessionId: string, moved: SessionRow | null): Promise<SessionState> {
    return moved ? sessionStateOf(this.waited, nothingYet(moved), this.chat.inFlightView(sessionId)) : this.state(sessionId);
  }

  async consentRespond(sessionId: string, p: ConsentRespond): Promise<SessionState> {
    return this.stateAfter(sessionId, await respondConsent(this.waited, sessionId, p));
  }

  async stepAdvance(sessionId: string, p: StepAdvance): Promise<SessionState> {
    return this.stateAfter(sessionId, await advanceStep(this.waited, sessionId, p));
  }

  chatSend = (sessionId: string, p: ChatSend) => this.chat.send(sessionId, p);
  chatStop = (sessionId: string, p: ChatStop) => this.chat.stop(sessionId, p);
  chatRetry = (sessionId: string, p: ChatRetry) => this.chat.retry(sessionId, p);
  artifactDraft = (sessionId: string, p: ArtifactDraft) => saveDraft(this.waited, sessionId, p);

  async artifactSubmit(sessionId: string, p: ArtifactSubmit): Promise<SessionState> {
    const checked = await checkSubmission(this.waited, sessionId, p);
    // Finish the reply in flight (on this node or another) first so the trajectory shows it before the submission.
    await this.chat.stopAndSettle(sessionId, p.clientTs);
    await submitArtifact(this.waited, checked, p);
    return this.state(sessionId);
  }

  async surveySubmit(sessionId: string, p: SurveySubmit): Promise<SessionState> {
    await submitSurvey(this.waited, sessionId, p);
    return this.state(sessionId);
  }

  telemetry = (sessionId: string, p: Telemetry) => recordTelemetry(this.ctx, sessionId, p);

  /** Trajectory marks for socket connections (a reconnect shows up as closed → opened). */
  async connectionOpened(sessionId: string): Promise<void> {
    await this.ctx.store.interactive.events.append(sessionId, 'connection.opened', {}, this.ctx.now(), null);
  }
  async connectionClosed(sessionId: string, reason: string): Promise<void> {
    await this.ctx.store.interactive.events.append(sessionId, 'connection.closed', { reason }, this.ctx.now(), null);
  }
}
