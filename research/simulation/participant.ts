import type { ChatDelta, ChatDone, ChatError } from '../../common/events';
import type { ChatMessageView, SessionState } from '../../common/session';
import { preciseNowMs } from './clock';
import { joinStudy, uploadImage, visitLinkParams } from './http';
import type { ParticipantLogSink } from './jsonlLog';
import { ReliableSocket } from './reliableSocket';
import { MarkerTracker } from './tokenMarkers';
import { artifactValues, lastReplyTo, surveyAnswers } from './participantInputs';

/**
 * One simulated participant: joins over HTTP, then drives the session over socket.io step by step
 * (consent → instructions → workspace chat + draft + upload + submit → survey → complete), always
 * acting on the step the SERVER reports, so after any reconnect or server restart it simply carries on
 * from wherever the stored session is. Chat messages use deterministic client ids
 * (`<runId>p<index>t<turn>`), so a message whose ack was lost is resent with the same id.
 * Every request, ack, reply and connection change is written to the log.
 */

export interface ParticipantOptions {
  baseUrl: string;
  studyId: string;
  index: number;
  /** Short alphanumeric id of this run; part of every participant label and client id. */
  runId: string;
  chatLines: readonly string[];
  thinkMs?: { min: number; max: number };
  log: ParticipantLogSink;
  /** Also log every streamed delta (large logs under load). */
  logDeltas?: boolean;
  /** Give up on the whole session after this long. */
  sessionDeadlineMs?: number;
  /** Per reply: if nothing (delta/done/error) arrives for this long, re-read the session state. */
  replyIdleMs?: number;
  /** Retries of a failed reply before the turn counts as failed. */
  maxReplyRetries?: number;
  /** Random source (seeded in tests). */
  random?: () => number;
}

export interface ParticipantResult {
  index: number;
  sessionId: string | null;
  completed: boolean;
  completionCode: string | null;
  error: string | null;
  /** chat:send ack latencies (ms) of attempts that got an ack. */
  chatAckMs: number[];
  /** Provider-token → client latencies (ms) of timestamped tokens (see tokenMarkers.ts). */
  tokenLatencyMs: number[];
  messagesAcked: number;
  resends: number;
  replyErrors: number;
  replyRetries: number;
  reconnects: number;
  turnsFailed: number;
  /** Replies whose streamed fragments did not add up to the text in chat:done (no reconnect in between). */
  streamMismatches: number;
  /** chat:delta pushes received: with the tokens delivered, how many tokens the server sent per push. */
  deltas: number;
  /** Ack latencies (ms) of every request by event (session:state, consent:respond, …; refusals too). */
  ackMsByEvent: Record<string, number[]>;
}

type ReplyOutcome = 'complete' | 'stopped' | 'failed';
type Signal =
  | { kind: 'done'; d: ChatDone }
  | { kind: 'error'; d: ChatError }
  | { kind: 'reconnected' };

/** Pause before retrying a request the server refused as 'unavailable' (database briefly away). */
const UNAVAILABLE_RETRY_MS = 300;

export function clientIdFor(runId: string, index: number, turn: number): string {
  return `${runId}p${index}t${turn}`;
}

export function participantLabel(runId: string, index: number): string {
  return `sim-${runId}-${index}`;
}

export async function runParticipant(options: ParticipantOptions): Promise<ParticipantResult> {
  const p = new SimulatedParticipant(options);
  return p.run();
}

class SimulatedParticipant {
  private readonly result: ParticipantResult;
  private socket: ReliableSocket | null = null;
  private token = '';
  private signals: Signal[] = [];
  private wake: (() => void) | null = null;
  private readonly random: () => number;
  private readonly startedAt = performance.now();
  /** Token timing per reply: created on the reply's first delta, which may arrive in the same read as the ack. */
  private readonly trackers = new Map<string, MarkerTracker>();
  private trackedReplyId: string | null = null;
  /** When the last chat:delta arrived (preciseNowMs): streaming keeps a reply wait from timing out. */
  private lastDeltaAt = 0;
  /** Text streamed so far per reply, to check it against chat:done; replies a reconnect cut into are dropped. */
  private readonly streamed = new Map<string, string>();

  constructor(private readonly o: ParticipantOptions) {
    this.random = o.random ?? Math.random;
    this.result = {
      index: o.index, sessionId: null, completed: false, completionCode: null, error: null,
      chatAckMs: [], tokenLatencyMs: [], messagesAcked: 0, resends: 0, replyErrors: 0, replyRetries: 0, reconnects: 0, turnsFailed: 0, streamMismatches: 0, deltas: 0, ackMsByEvent: {},
    };
  }

  private log(kind: string, fields: Record<string, unknown> = {}): void {
    this.o.log.write({ t: preciseNowMs(), run: this.o.runId, participant: this.o.index, sessionId: this.result.sessionId, kind, ...fields });
  }

  private timeLeft(): number {
    return (this.o.sessionDeadlineMs ?? 300_000) - (performance.now() - this.startedAt);
  }

  async run(): Promise<ParticipantResult> {
    try {
      const joined = await joinStudy(this.o.baseUrl, this.o.studyId, visitLinkParams(participantLabel(this.o.runId, this.o.index)), this.timeLeft(), (d) =>
        this.log('http_retry', d),
      );
      this.token = joined.token;
      this.result.sessionId = joined.sessionId;
      this.log('join', { resumed: joined.resumed });
      this.connect();
      await this.drive();
    } catch (error) {
      this.result.error = error instanceof Error ? error.message : String(error);
      this.log('gave_up', { error: this.result.error });
    } finally {
      this.socket?.close();
    }
    return this.result;
  }

  private connect(): void {
    let seenFirst = false;
    this.socket = new ReliableSocket({
      url: this.o.baseUrl,
      token: this.token,
      requestDeadlineMs: Math.max(1_000, this.timeLeft()),
      onAttempt: (event, attempt) => {
        if (attempt > 1) this.result.resends += 1;
      },
      onConnectionChange: (connected, detail) => {
        this.log(connected ? 'connect' : 'disconnect', { detail });
        if (connected) {
          if (seenFirst) {
            this.result.reconnects += 1;
            this.streamed.clear(); // fragments sent while we were away are not replayed
            this.push({ kind: 'reconnected' });
          }
          seenFirst = true;
        }
      },
    });
    const s = this.socket.socket;
    s.on('chat:delta', (d: ChatDelta) => {
      const at = preciseNowMs();
      this.result.deltas += 1;
      if (this.o.logDeltas) this.log('delta', { replyId: d.replyId, chars: d.text.length, text: d.text });
      this.streamed.set(d.replyId, (this.streamed.get(d.replyId) ?? '') + d.text);
      let tracker = this.trackers.get(d.replyId);
      if (!tracker) this.trackers.set(d.replyId, (tracker = new MarkerTracker()));
      this.result.tokenLatencyMs.push(...tracker.push(d.text, at));
      // Not a signal: a wake-up and a timer per token would make this client cost more per token than the
      // bare relay's client, and the load generator's delay would count against the platform.
      this.lastDeltaAt = at;
    });
    s.on('chat:done', (d: ChatDone) => {
      this.log('chat:done', { replyId: d.message.id, replyTo: d.message.replyTo, status: d.message.status, chars: d.message.text.length });
      const streamed = this.streamed.get(d.message.id);
      if (streamed !== undefined && d.message.status === 'complete' && streamed !== d.message.text) {
        this.result.streamMismatches += 1;
        this.log('stream_mismatch', { replyId: d.message.id, streamedChars: streamed.length, storedChars: d.message.text.length });
      }
      this.streamed.delete(d.message.id);
      this.push({ kind: 'done', d });
    });
    s.on('chat:error', (d: ChatError) => {
      this.log('chat:error', { replyId: d.replyId, message: d.message, retryable: d.retryable, partialStatus: d.partial?.status ?? null });
      this.push({ kind: 'error', d });
    });
    s.on('session:state', (state: SessionState) => this.log('state_push', { step: state.step, status: state.status }));
  }

  private push(signal: Signal): void {
    this.signals.push(signal);
    this.wake?.();
  }

  /** The next done/error/reconnect signal, or null once nothing (not even a delta) arrived for `idleMs`. */
  private async nextSignal(idleMs: number): Promise<Signal | null> {
    const since = preciseNowMs();
    while (this.signals.length === 0) {
      const quietMs = preciseNowMs() - Math.max(since, this.lastDeltaAt);
      if (quietMs >= idleMs) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, idleMs - quietMs);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.wake = done;
      });
      this.wake = null;
    }
    return this.signals.shift() ?? null;
  }

  /** A request whose failure (ok:false) is returned; gives up (throws) only when the deadline passes. */
  private async call<E extends Parameters<ReliableSocket['request']>[0]>(event: E, payload: Parameters<ReliableSocket['request']>[1] & object) {
    const outcome = await this.socket!.request(event, payload as never);
    (this.result.ackMsByEvent[event] ??= []).push(outcome.ackMs);
    this.log('ack', {
      event,
      ok: outcome.ok,
      attempts: outcome.attempts,
      ackMs: outcome.ackMs,
      ...(outcome.ok ? {} : { code: outcome.error.code, message: outcome.error.message }),
    });
    return outcome;
  }

  private async state(): Promise<SessionState> {
    for (let attempt = 1; ; attempt++) {
      const r = await this.call('session:state', { clientTs: Date.now() });
      if (r.ok) return r.data as SessionState;
      // 'unavailable': the database is briefly away (a restart); the envelope says retrying helps.
      if (r.error.code !== 'unavailable' || attempt >= 50) throw new Error(`session:state failed: ${r.error.code} ${r.error.message}`);
      await new Promise((resolve) => setTimeout(resolve, UNAVAILABLE_RETRY_MS));
    }
  }

  private async think(): Promise<void> {
    const t = this.o.thinkMs ?? { min: 0, max: 0 };
    const ms = t.min + this.random() * Math.max(0, t.max - t.min);
    if (ms > 0) await new Promise((r) => setTimeout(r, ms));
  }

  private async drive(): Promise<void> {
    await this.socket!.waitConnected(this.timeLeft());
    let state = await this.state();
    for (let guard = 0; guard < 1000; guard++) {
      if (this.timeLeft() <= 0) throw new Error(`session not finished in time (at step ${state.step})`);
      this.log('step', { step: state.step, status: state.status });
      if (state.step === 'complete' || state.status !== 'active') {
        this.result.completed = state.status === 'completed';
        this.result.completionCode = state.completion?.code ?? null;
        this.log('complete', { status: state.status, code: this.result.completionCode });
        return;
      }
      let next: SessionState | null = null;
      if (state.step === 'consent') {
        const r = await this.call('consent:respond', { accept: true, version: state.consent.version, clientTs: Date.now() });
        next = r.ok ? (r.data as SessionState) : null;
      } else if (state.step === 'instructions') {
        await this.think();
        const r = await this.call('step:advance', { from: 'instructions', clientTs: Date.now() });
        next = r.ok ? (r.data as SessionState) : null;
      } else if (state.step === 'workspace') {
        next = await this.workspace(state);
      } else if (state.step === 'survey') {
        await this.think();
        const r = await this.call('survey:submit', { answers: surveyAnswers(state, this.random), clientTs: Date.now() });
        next = r.ok ? (r.data as SessionState) : null;
      }
      // A refused step (e.g. wrong_step because a resent request had already committed) or a
      // workspace pass that ended early: re-read where the server says we are and carry on.
      state = next ?? (await this.state());
    }
    throw new Error('step loop did not converge');
  }

  private async workspace(initial: SessionState): Promise<SessionState | null> {
    let state = initial;
    for (let turn = 0; turn < this.o.chatLines.length; turn++) {
      const clientId = clientIdFor(this.o.runId, this.o.index, turn);
      const stored = state.messages.find((m) => m.role === 'user' && m.clientId === clientId);
      const reply = stored && lastReplyTo(state.messages, stored.id);
      if (stored && reply && (reply.status === 'complete' || reply.status === 'stopped')) continue; // turn done before a restart
      if (!stored) await this.think();
      const sent = await this.send(clientId, this.o.chatLines[turn]!);
      if (!sent) return null; // the session moved on (time limit): the step loop re-reads it
      const outcome = await this.awaitReply(sent.messageId, sent.duplicate || !!stored);
      if (outcome === 'failed') {
        this.result.turnsFailed += 1;
        this.log('turn_failed', { clientId, turn });
        // Like the browser client, re-read the state only when something went wrong.
        state = await this.state();
        if (state.step !== 'workspace') return state;
      }
      const draft = await this.call('artifact:draft', { fields: artifactValues(state, {}, turn), clientTs: Date.now() });
      if (!draft.ok) this.log('draft_refused', { code: draft.error.code });
    }
    const uploads: Record<string, string> = {};
    for (const field of state.task.fields.filter((f) => f.kind === 'image')) {
      const existing = state.uploads.find((u) => u.fieldId === field.id);
      const id = existing?.id ?? (await uploadImage(this.o.baseUrl, this.token, field.id, this.timeLeft(), (d) => this.log('http_retry', d))).uploadId;
      uploads[field.id] = id;
      this.log('upload', { fieldId: field.id, uploadId: id });
    }
    await this.think();
    const r = await this.call('artifact:submit', { fields: artifactValues(state, uploads, this.o.chatLines.length), clientTs: Date.now() });
    return r.ok ? (r.data as SessionState) : null;
  }

  /**
   * Sends (and if needed resends) one chat line until acknowledged; returns the stored message id, or
   * null when the session is no longer at the workspace (e.g. its time limit passed).
   */
  private async send(clientId: string, text: string): Promise<{ messageId: string; duplicate: boolean } | null> {
    for (let attempt = 0; attempt < 50; attempt++) {
      this.log('send', { event: 'chat:send', clientId, chars: text.length });
      const r = await this.call('chat:send', { clientId, text, clientTs: Date.now() });
      if (r.ok) {
        const data = r.data as { message: ChatMessageView; replyId: string | null; duplicate: boolean };
        this.result.chatAckMs.push(r.ackMs);
        this.result.messagesAcked += 1;
        this.log('chat_ack', { clientId, messageId: data.message.id, replyId: data.replyId, duplicate: data.duplicate, ackMs: r.ackMs, attempts: r.attempts });
        if (data.replyId) this.track(data.replyId, '');
        return { messageId: data.message.id, duplicate: data.duplicate };
      }
      if (r.error.code === 'wrong_step' || r.error.code === 'session_over') return null;
      if (r.error.code === 'busy') {
        // A reply (e.g. to the previous turn, restarted after a crash) is still streaming: wait for it.
        await this.nextSignal(500);
        continue;
      }
      if (r.error.code === 'unavailable') {
        // The database is briefly away (a restart): resend the same clientId in a moment, as the client does.
        await new Promise((resolve) => setTimeout(resolve, UNAVAILABLE_RETRY_MS));
        continue;
      }
      throw new Error(`chat:send refused: ${r.error.code} ${r.error.message}`);
    }
    throw new Error('chat:send stayed busy');
  }

  /** The reply this participant now waits for; `textSoFar` (after a reconnect) is not timed again. */
  private track(replyId: string, textSoFar: string): void {
    this.trackedReplyId = replyId;
    if (textSoFar && !this.trackers.has(replyId)) {
      const tracker = new MarkerTracker();
      tracker.push(textSoFar, preciseNowMs());
      this.trackers.set(replyId, tracker);
    }
  }

  /**
   * Waits for the reply to `userMessageId` to end, retrying failed replies. `checkFirst`: the message
   * was stored before (a resend), so its reply may already have ended: look before waiting.
   */
  private async awaitReply(userMessageId: string, checkFirst: boolean): Promise<ReplyOutcome> {
    let retries = 0;
    if (checkFirst) this.push({ kind: 'reconnected' });
    const retry = async (): Promise<ReplyOutcome | null> => {
      if (retries >= (this.o.maxReplyRetries ?? 5)) return 'failed';
      retries += 1;
      this.result.replyRetries += 1;
      await new Promise((r) => setTimeout(r, 100 + this.random() * 200));
      const r = await this.call('chat:retry', { clientTs: Date.now() });
      if (r.ok) {
        this.track((r.data as { replyId: string }).replyId, '');
        return null;
      }
      // conflict: nothing to retry (the reply completed meanwhile); busy: one is streaming. Re-read.
      const decided = await this.reconcile(userMessageId, false);
      return decided === 'retry' ? null : decided;
    };
    for (;;) {
      if (this.timeLeft() <= 0) return 'failed';
      const signal = await this.nextSignal(this.o.replyIdleMs ?? 30_000);
      if (signal === null || signal.kind === 'reconnected') {
        const decided = await this.reconcile(userMessageId, true);
        if (decided === 'retry') {
          const r = await retry();
          if (r) return r;
        } else if (decided) return decided;
        continue;
      }
      if (signal.kind === 'done' && signal.d.message.replyTo === userMessageId) {
        return signal.d.message.status === 'complete' || signal.d.message.status === 'stopped' ? signal.d.message.status : 'failed';
      }
      if (signal.kind === 'error' && (signal.d.replyId === this.trackedReplyId || signal.d.partial?.replyTo === userMessageId)) {
        this.result.replyErrors += 1;
        if (!signal.d.retryable) return 'failed';
        const r = await retry();
        if (r) return r;
      }
    }
  }

  /**
   * Looks at the stored session to decide what the reply to `userMessageId` is doing:
   * finished → its outcome; streaming → keep waiting (null); failed or missing → 'retry'.
   */
  private async reconcile(userMessageId: string, allowRetry: boolean): Promise<ReplyOutcome | 'retry' | null> {
    const state = await this.state();
    const reply = lastReplyTo(state.messages, userMessageId);
    const inFlight = state.replyInFlight;
    this.log('reconcile', { userMessageId, replyStatus: reply?.status ?? null, inFlight: inFlight?.replyTo ?? null });
    if (inFlight && inFlight.replyTo === userMessageId) {
      if (inFlight.replyId !== this.trackedReplyId) this.track(inFlight.replyId, inFlight.text);
      return null;
    }
    if (inFlight) return null; // some other reply streams; wait for it to end
    if (reply && (reply.status === 'complete' || reply.status === 'stopped')) return reply.status;
    if (state.step !== 'workspace') return 'failed';
    return allowRetry ? 'retry' : null;
  }
}
