import type { ReplyCheckpoints } from './replyCheckpoint';

/** How a reply runs: its time bounds and where its crash checkpoints go (the chat service sets them once). */
export interface ReplyRunOptions {
  /** Hard upper bound for one reply, after which it is aborted and stored as an error. */
  replyTimeoutMs: number;
  /** After an abort, how long to wait for the provider to return before storing what had streamed. */
  abortGraceMs: number;
  /** The crash checkpoints of streaming replies (one writer for all of this process's replies). */
  checkpoints: ReplyCheckpoints;
}
