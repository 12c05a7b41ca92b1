import type { AbortCause } from './replyOutcome';

/** What a session's snapshot (and another node asking) sees of a reply streaming here. */
export interface InFlightView {
  replyId: string;
  replyTo: string;
  text: string;
}

/** A reply streaming right now on this node: what it has produced, how to stop it, and how far it was pushed. */
export interface InFlight extends InFlightView {
  sessionId: string;
  /** The session's deadline (ms, server clock) when the reply started; null without a time limit. */
  deadline: number | null;
  abort: AbortController;
  abortedBy: AbortCause | null;
  /** Set once the reply's outcome is decided: later deltas (from a provider we gave up on) are dropped. */
  finished: boolean;
  /**
   * The end of `text` not pushed to the participant yet (what the next chat:delta carries; the rest of `text` was
   * pushed), kept apart so that a push never slices `text`: slicing a string built with += flattens (copies) all
   * of it, once per push, O(n²) per reply.
   */
  unpushed: string;
  /** A push of the text not yet sent is scheduled for the end of this event-loop turn. */
  pushScheduled: boolean;
  /** How long the reply waited for an unavailable store (its history read, its outcome's write): in reply.finished. */
  storeWaitMs: number;
  done: Promise<void>;
}

export function newInFlight(sessionId: string, replyId: string, replyTo: string, deadline: number | null): InFlight {
  return {
    sessionId,
    replyId,
    replyTo,
    text: '',
    deadline,
    abort: new AbortController(),
    abortedBy: null,
    finished: false,
    unpushed: '',
    pushScheduled: false,
    storeWaitMs: 0,
    done: Promise.resolve(),
  };
}

/** Aborts the reply (the first cause wins); a reply whose outcome is already decided is left alone. */
export function abortReply(f: InFlight, cause: AbortCause): void {
  if (f.finished) return;
  f.abortedBy ??= cause;
  f.abort.abort();
}
