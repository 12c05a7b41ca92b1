/**
 * What the study link carries: recruitment-platform ids (Prolific, MTurk, a plain participant
 * label). They are sent once with the join request (the server keeps them in its identity table)
 * and never written anywhere else by the client.
 */
export interface LaunchParams {
  /** All query parameters as given, for the server's identity table. */
  raw: Record<string, string>;
  /** MTurk shows tasks in preview before a worker accepts: then no session may be created. */
  isMturkPreview: boolean;
}

export const MTURK_PREVIEW_ASSIGNMENT = 'ASSIGNMENT_ID_NOT_AVAILABLE';

export function readLaunchParams(search: string): LaunchParams {
  const params = new URLSearchParams(search);
  const raw: Record<string, string> = {};
  for (const [key, value] of params) raw[key] = value;
  return { raw, isMturkPreview: params.get('assignmentId') === MTURK_PREVIEW_ASSIGNMENT };
}
