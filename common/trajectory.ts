import { z } from 'zod';

/**
 * Types of trajectory events (events.type). Payloads are JSON; every event also has seq, server_ts (ms UTC)
 * and client_ts (browser ms, null for server-originated events). Payloads never hold identities.
 *
 *  session.created     {studyId, taskId, conditionId, isPilot}
 *  session.resumed     {via: 'join' | 'resume_code'}              reopened in a new browser: the link with the same per-visit id, or the resume code
 *  connection.opened / connection.closed  {}                      a socket of this session (re)connected / left
 *  consent.accepted    {version, textHash}                        textHash = sha256 hex of the consent text
 *  consent.declined    {version, textHash}
 *  step.changed        {from, to}
 *  message.user        {messageId, clientId, text, chars, tokens}
 *  reply.started       {replyId, replyTo, retry}
 *  chat.stop_requested {replyId}
 *  reply.finished      {replyId, replyTo, status, text, tokens, provider, providerUrl, model, requestedModel,
 *                       params, usage, ttftMs, durationMs, finishReason, interrupted, attempts, error}
 *  artifact.draft_saved {fields, version, savedAt?}                 autosaves, coalesced: at most one per DRAFT_EVENT_INTERVAL_SECONDS
 *                                                                 per session (full snapshots, not diffs; the row artifact_drafts holds
 *                                                                 the latest); the final draft is recorded before artifact.submitted
 *                                                                 and session.timed_out (then with savedAt, client_ts null)
 *  upload.stored       {uploadId, fieldId, fileName, contentType, bytes, sha256}
 *  artifact.submitted  {version, fields}
 *  survey.submitted    {surveyId, answers, attentionCheckPassed}
 *  screening.answered  {surveyId: 'group-screening', answers}      a group condition's screening answers, before the lobby
 *  session.timed_out   {deadline}
 *  session.completed   {outcome: completed|declined|timed_out, code, reason?}   reason lobby_timeout|no_seat: a group lobby
 *                                                                 released the person (timed_out with the lobby_timeout code)
 *  telemetry.focus / telemetry.blur / telemetry.paste / telemetry.visibility  {chars?, target?, state?}  (older clients)
 *  telemetry.batch     {step, pastes: [{target, chars, at}], away: [{at, ms, hidden}], typing: [{area, typedChars, keyEvents,
 *                       intervals: {count, sumMs, sumSqMs, bins}, pauses}], ua: {device, browser}}   (common/telemetryBatch.ts)
 */
export const TrajectoryEventType = z.enum([
  'session.created',
  'session.resumed',
  'connection.opened',
  'connection.closed',
  'consent.accepted',
  'consent.declined',
  'step.changed',
  'message.user',
  'reply.started',
  'chat.stop_requested',
  'reply.finished',
  'artifact.draft_saved',
  'upload.stored',
  'artifact.submitted',
  'survey.submitted',
  'screening.answered',
  'session.timed_out',
  'session.completed',
  'telemetry.focus',
  'telemetry.blur',
  'telemetry.paste',
  'telemetry.visibility',
  'telemetry.batch',
]);
export type TrajectoryEventType = z.infer<typeof TrajectoryEventType>;
