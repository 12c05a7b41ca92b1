import { useEffect, useReducer, useState } from 'react';
import type { JoinResponse, StudyPublic, UrlParams } from '../../../common/http';
import type { SessionState } from '../../../common/session';
import type { ArtifactValues } from '../../../common/session';
import type { SurveyAnswers } from '../../../common/survey';
import type { Telemetry, ArtifactDraftAck, ArtifactDraftPush, StepAdvance } from '../../../common/events';
import type { TelemetryBatch } from '../../../common/telemetryBatch';
import { ChatOutbox } from '../../socket/chatOutbox';
import { RequestError } from '../../socket/errors';
import { actionMessageOf, platformOf, problemOf, type ParticipantProblem } from '../errorMessages';
import { SessionSocket, type ConnectionState } from '../../socket/sessionSocket';
import type { Socket } from 'socket.io-client';
import { fetchStudyPublic, joinStudy, resumeWithCode } from '../api';
import { readLaunchParams } from '../launchParams';
import { forgetToken, loadResumeCode, loadToken, paramsFingerprint, saveToken } from '../tokenStore';
import { initialLive, liveReducer, type LiveAction, type LiveSession } from './liveSession';

export interface SessionActions {
  respondConsent(accept: boolean, version: string): Promise<void>;
  advance(from: StepAdvance['from']): Promise<void>;
  sendChat(text: string): void;
  stopReply(): Promise<void>;
  retryReply(): Promise<void>;
  /** Autosave; `baseVersion` is the draft version the values started from (a stale one is refused: 'conflict'). */
  saveDraft(fields: ArtifactValues, baseVersion?: number): Promise<ArtifactDraftAck>;
  /** Drafts saved from the session's other tabs, as they are saved; returns the unsubscribe function. */
  onOtherTabDraft(listener: (draft: ArtifactDraftPush) => void): () => void;
  /** Re-reads the session from the server (e.g. to load a draft saved in another tab). */
  loadState(): Promise<SessionState>;
  submitArtifact(fields: ArtifactValues): Promise<void>;
  submitSurvey(answers: SurveyAnswers): Promise<void>;
  telemetry(event: Omit<Telemetry, 'clientTs'>): void;
  /** Integrity telemetry batch (client/participant/telemetry/useIntegrityTelemetry.ts). */
  telemetryBatch(batch: Omit<TelemetryBatch, 'clientTs'>): Promise<unknown>;
  /** The session's socket, which the group room's events share (client/participant/group/). */
  connection(): Socket;
}

export type SessionView =
  | { phase: 'loading'; message: string }
  | { phase: 'preview'; study: StudyPublic | null }
  | { phase: 'error'; problem: ParticipantProblem }
  | ResumePrompt
  | {
      phase: 'live';
      live: LiveSession;
      connection: ConnectionState;
      connectionNotice: string | null;
      token: string;
      /** The session's resume code, shown in the header and on the consent step (null when this browser does not know it). */
      resumeCode: string | null;
      /**
       * Set when this session was just started from a link without a per-visit id (so this may be the second
       * browser of an earlier session): switches to the resume-code prompt, which can come back here.
       */
      resumeInstead: (() => void) | null;
      actions: SessionActions;
    };

/** The link's platform id has a session this browser cannot prove is its own: ask for the resume code. */
export interface ResumePrompt {
  phase: 'resume';
  submit(code: string): Promise<void>;
  /** True when this browser had the session until it was reopened in another browser (its token was revoked). */
  movedAway: boolean;
  /** The resume code this browser showed before it lost the session (its header had it), or null. */
  knownCode: string | null;
  /** Back to the session this browser just started (when the participant opened the prompt themselves). */
  back?: () => void;
}

type Boot =
  | { phase: 'loading'; message: string }
  | { phase: 'preview'; study: StudyPublic | null }
  | { phase: 'error'; problem: ParticipantProblem }
  | ResumePrompt
  | { phase: 'connected'; token: string; actions: SessionActions };

/**
 * Joins (or resumes) the participant's session for `studyId` and keeps it live over socket.io:
 * every (re)connect re-reads the full state and resends unacknowledged chat messages.
 */
export function useParticipantSession(studyId: string): SessionView {
  const [boot, setBoot] = useState<Boot>({ phase: 'loading', message: 'Opening the study…' });
  const [live, dispatch] = useReducer(
    (current: LiveSession | null, action: LiveAction | { type: 'init'; state: SessionState; pending: LiveSession['pending'] }) => {
      if (action.type === 'init') return initialLive(action.state, action.pending);
      if (action.type === 'snapshot' && !current) return initialLive(action.state, []);
      return current ? liveReducer(current, action) : current;
    },
    null,
  );
  const [connection, setConnection] = useState<ConnectionState>('connecting');
  // Why the server refuses the socket for now (too many tabs, rate limit) while the socket retries.
  const [connectionNotice, setConnectionNotice] = useState<string | null>(null);
  const [resumeInstead, setResumeInstead] = useState<(() => void) | null>(null);

  useEffect(() => {
    let disposed = false;
    let socket: SessionSocket | null = null;
    let outbox: ChatOutbox | null = null;
    let rejoined = false;
    let lostCode: string | null = null;
    const launch = readLaunchParams(window.location.search);
    const platform = platformOf(launch);

    const snapshot = (state: SessionState) => {
      if (disposed) return;
      outbox?.reconcile(state.messages);
      dispatch({ type: 'snapshot', state });
    };

    const connect = (token: string) => {
      const s = new SessionSocket({ token });
      socket = s;
      const ob = new ChatOutbox(`tandem:outbox:${studyId}`, {
        send: (m) => s.emit('chat:send', m),
        isConnected: () => s.connected,
        onAck: (ack) => dispatch({ type: 'sent', ack }),
        onRefused: (m, error) =>
          dispatch({ type: 'chatError', message: `Your message was not sent: ${actionMessageOf(error)}`, retryable: false, unsentText: m.text }),
        onChange: (pending) => dispatch({ type: 'pending', pending }),
      });
      outbox = ob;
      // A participant message stored from any tab of the session (this one too: de-duplicated by id/clientId).
      s.on('chat:message', ({ message }) => {
        ob.reconcile([message]);
        dispatch({ type: 'mirrored', message });
      });
      s.on('chat:delta', (delta) => dispatch({ type: 'delta', delta }));
      s.on('chat:done', ({ message }) => {
        dispatch({ type: 'done', message });
        void ob.flush();
      });
      s.on('chat:error', (failure) => {
        dispatch({ type: 'failed', failure });
        void ob.flush();
      });
      s.on('session:state', snapshot);
      const actions = makeActions(s, ob, dispatch);
      s.onConnection((state) => {
        if (disposed) return;
        setConnection(state);
        setConnectionNotice(s.notice);
        // Refused before the session ever loaded: say why on the loading page instead of "Opening the study…".
        if (state === 'refused' && s.notice) {
          const notice = s.notice;
          setBoot((current) => (current.phase === 'loading' ? { phase: 'loading', message: notice } : current));
        }
        if (state === 'connected') {
          s.emit('session:state', { clientTs: Date.now() })
            .then((state) => {
              if (disposed) return;
              ob.reconcile(state.messages);
              dispatch({ type: 'init', state, pending: ob.list() });
              setBoot((current) => (current.phase === 'connected' && current.token === token ? current : { phase: 'connected', token, actions }));
              void ob.flush();
            })
            // On a first load this is fatal; after a reconnect the page keeps what it has and the next
            // reconnect tries again.
            .catch((error) =>
              setBoot((current) => (current.phase === 'connected' ? current : { phase: 'error', problem: problemOf(error, platform) })),
            );
        }
        if (state === 'unauthorized') {
          s.close();
          ob.dispose();
          // The code this browser showed in its header: the resume prompt may repeat it here.
          lostCode = loadResumeCode(studyId);
          forgetToken(studyId);
          // A token may be stale (the database was reset) or revoked (the session was reopened in another
          // browser): go through the link again, once per page load, so two browsers of one session cannot
          // take it from each other in a loop. With no per-visit id in the link, that asks for the resume code.
          if (!rejoined) {
            rejoined = true;
            void join();
          }
          else setBoot({ phase: 'error', problem: problemOf(new RequestError('unauthorized', 'token refused'), platform) });
        }
      });
    };

    // Errors reach the prompt (wrong code, rate limit); the prompt says what to do.
    const submitCode = async (code: string) => {
      const joined = await resumeWithCode(studyId, launch.raw, code);
      if (disposed) return;
      // The session this browser started meanwhile (offerResume) is left at its consent step.
      socket?.close();
      outbox?.dispose();
      setResumeInstead(null);
      saveToken(studyId, joined.token, launch.raw, joined.resumeCode);
      setBoot({ phase: 'loading', message: 'Opening your session…' });
      connect(joined.token);
    };

    const join = async () => {
      try {
        const joined = await joinOnce(studyId, launch.raw);
        // This browser's session was reopened elsewhere and the link has no per-visit id: the link started a
        // fresh session (as it does for anyone), but what this browser wants back is the old one.
        if (rejoined && 'offerResume' in joined && joined.offerResume) {
          if (!disposed) setBoot({ phase: 'resume', submit: submitCode, movedAway: true, knownCode: lostCode });
          return;
        }
        // Saved even when this effect was disposed meanwhile: the session is this browser's either way.
        if (!joined.preview && 'token' in joined) saveToken(studyId, joined.token, launch.raw, joined.resumeCode);
        if (disposed) return;
        if (joined.preview) {
          setBoot({ phase: 'preview', study: await fetchStudyPublic(studyId).catch(() => null) });
          return;
        }
        if ('resumeCodeRequired' in joined) {
          setBoot({ phase: 'resume', submit: submitCode, movedAway: rejoined, knownCode: lostCode });
          return;
        }
        connect(joined.token);
        if (joined.offerResume) {
          setResumeInstead(() => () =>
            setBoot((current) =>
              current.phase !== 'connected' ? current : { phase: 'resume', submit: submitCode, movedAway: false, knownCode: null, back: () => setBoot(current) },
            ),
          );
        }
      } catch (error) {
        if (!disposed) setBoot({ phase: 'error', problem: problemOf(error, platform) });
      }
    };

    if (launch.isMturkPreview) {
      fetchStudyPublic(studyId)
        .then((study) => !disposed && setBoot({ phase: 'preview', study }))
        .catch((error) => !disposed && setBoot({ phase: 'error', problem: problemOf(error, platform) }));
    } else {
      const stored = loadToken(studyId, launch.raw);
      if (stored) connect(stored);
      else void join();
    }
    return () => {
      disposed = true;
      outbox?.dispose();
      socket?.close();
    };
  }, [studyId]);

  if (boot.phase !== 'connected') return boot;
  if (!live) return { phase: 'loading', message: 'Loading your session…' };
  return { phase: 'live', live, connection, connectionNotice, token: boot.token, resumeCode: loadResumeCode(studyId), resumeInstead, actions: boot.actions };
}

/**
 * One join request per study link at a time, shared by every caller. A second join of a link with no
 * per-visit id starts a second session (the server cannot tell a second browser from a new person), so the
 * effect must not join twice: React's development mode runs effects twice, and the first run's reply is dropped.
 */
const joinsInFlight = new Map<string, Promise<JoinResponse>>();
function joinOnce(studyId: string, params: UrlParams): Promise<JoinResponse> {
  const key = `${studyId}\n${paramsFingerprint(params)}`;
  let pending = joinsInFlight.get(key);
  if (!pending) {
    pending = joinStudy(studyId, params).finally(() => joinsInFlight.delete(key));
    joinsInFlight.set(key, pending);
  }
  return pending;
}

function makeActions(
  socket: SessionSocket,
  outbox: ChatOutbox,
  dispatch: (action: LiveAction) => void,
): SessionActions {
  const now = () => Date.now();
  const withState = async (promise: Promise<SessionState>) => {
    dispatch({ type: 'snapshot', state: await promise });
  };
  // When the server says the session moved on (time limit), re-read it so the page follows.
  const resyncOn = async <T>(promise: Promise<T>): Promise<T> => {
    try {
      return await promise;
    } catch (error) {
      if (error instanceof RequestError && (error.code === 'session_over' || error.code === 'wrong_step')) {
        socket.emit('session:state', { clientTs: now() }).then((state) => dispatch({ type: 'snapshot', state }), () => undefined);
      }
      throw error;
    }
  };
  return {
    respondConsent: (accept, version) =>
      resyncOn(withState(socket.emit('consent:respond', { accept, version, clientTs: now() }))),
    advance: (from) => resyncOn(withState(socket.emit('step:advance', { from, clientTs: now() }))),
    sendChat: (text) => {
      outbox.add(text);
    },
    stopReply: async () => {
      await socket.emit('chat:stop', { clientTs: now() });
    },
    retryReply: async () => {
      try {
        const { replyId } = await socket.emit('chat:retry', { clientTs: now() });
        dispatch({ type: 'retrying', replyId });
      } catch (error) {
        dispatch({ type: 'chatError', message: `Retry failed: ${actionMessageOf(error)}`, retryable: true });
      }
    },
    saveDraft: (fields, baseVersion) =>
      resyncOn(socket.emit('artifact:draft', baseVersion === undefined ? { fields, clientTs: now() } : { fields, baseVersion, clientTs: now() })),
    onOtherTabDraft: (listener) => socket.on('artifact:draft', listener),
    loadState: async () => {
      const state = await socket.emit('session:state', { clientTs: now() });
      dispatch({ type: 'snapshot', state });
      return state;
    },
    submitArtifact: (fields) => resyncOn(withState(socket.emit('artifact:submit', { fields, clientTs: now() }))),
    submitSurvey: (answers) => resyncOn(withState(socket.emit('survey:submit', { answers, clientTs: now() }))),
    telemetry: (event) => {
      socket.emit('telemetry', { ...event, clientTs: now() }).catch(() => undefined);
    },
    telemetryBatch: (batch) => socket.emit('telemetry:batch', { ...batch, clientTs: now() }),
    connection: () => socket.connection,
  };
}
