import { RequestError, type ClientErrorCode } from '../socket/errors';
import type { LaunchParams } from './launchParams';

/**
 * What a participant reads when something fails: a sentence for people per error code, and what
 * they can do about it. The server's own message is written for logs and researchers
 * ('study "x" is not accepting participants (status closed)') and is never shown as is.
 */
export interface ParticipantProblem {
  title: string;
  /** What happened, in plain words. */
  explanation: string;
  /** What the participant can do now, most useful first. */
  nextSteps: string[];
  /** Whether trying again (reloading) can help; only then is a "Try again" button shown. */
  retryable: boolean;
}

/** Which recruitment platform sent the participant, from the study link's parameters. */
export type Platform = 'prolific' | 'mturk' | null;

export function platformOf(launch: Pick<LaunchParams, 'raw'>): Platform {
  if (launch.raw.PROLIFIC_PID) return 'prolific';
  if (launch.raw.workerId || launch.raw.assignmentId) return 'mturk';
  return null;
}

function goBack(platform: Platform): string {
  if (platform === 'prolific') return 'Go back to Prolific and return the study there, so it does not count against you.';
  if (platform === 'mturk') return 'Go back to Mechanical Turk and return the HIT, so it does not count against you.';
  return 'Go back to the page that sent you here.';
}

const CONTACT = 'If you think this is a mistake, please message the researcher through the platform that sent you here.';

/** The page-level problem for a failure that stops the study from opening (join, first load). */
export function problemOf(error: unknown, platform: Platform): ParticipantProblem {
  const code: ClientErrorCode = error instanceof RequestError ? error.code : 'internal';
  switch (code) {
    case 'study_unavailable':
      return {
        title: 'This study is not open right now',
        explanation: 'The study is not taking new participants at the moment (it may be full or finished).',
        nextSteps: [goBack(platform), CONTACT],
        retryable: false,
      };
    case 'not_found':
      return {
        title: 'We could not find this study',
        explanation: 'The link does not lead to a study on this site. It may be incomplete or out of date.',
        nextSteps: ['Open the study again from the platform that sent you here, or copy the whole link.', goBack(platform)],
        retryable: false,
      };
    case 'unauthorized':
    case 'forbidden':
      return {
        title: 'This link does not match your session',
        explanation: 'Your session could not be opened with this link.',
        nextSteps: ['Open the original study link again from the platform that sent you here.', CONTACT],
        retryable: false,
      };
    case 'session_over':
      return {
        title: 'Your session has already ended',
        explanation: 'You have already finished, declined or run out of time in this study.',
        nextSteps: [goBack(platform), CONTACT],
        retryable: false,
      };
    case 'invalid_input':
      return {
        title: 'The study link is not complete',
        explanation: 'Some information the study needs is missing from the link.',
        nextSteps: ['Open the study again from the platform that sent you here.', CONTACT],
        retryable: false,
      };
    case 'rate_limited':
      return {
        title: 'Too many attempts',
        explanation: 'The study server received too many requests from your connection.',
        nextSteps: ['Wait a minute, then try again.'],
        retryable: true,
      };
    case 'disconnected':
    case 'timeout':
      return {
        title: 'We could not reach the study server',
        explanation: 'Your device could not connect to the study.',
        nextSteps: ['Check your internet connection, then try again.', CONTACT],
        retryable: true,
      };
    default:
      return {
        title: 'Something went wrong on our side',
        explanation: 'The study could not be opened because of a problem on the study server, not on your side.',
        nextSteps: ['Try again in a minute.', CONTACT],
        retryable: true,
      };
  }
}

/**
 * One sentence for a failed action inside the study (saving, submitting, sending), by error code.
 * `field` problems keep the server's message, which names the field and the rule.
 */
export function actionMessageOf(error: unknown): string {
  if (!(error instanceof RequestError)) return 'Something went wrong. Please try again.';
  switch (error.code) {
    case 'disconnected':
    case 'timeout':
      return 'The connection to the study server was lost. Your work is kept here; please try again when you are back online.';
    case 'rate_limited':
      return 'That was too fast for the server. Please wait a few seconds and try again.';
    case 'busy':
      return 'The assistant is still answering. Please wait for the reply to finish.';
    case 'too_large':
      return 'This is too long or too large to send. Please shorten it and try again.';
    case 'limit_reached':
      return 'You have used all the messages to the assistant that this study allows. Please finish the task without the chat.';
    case 'storage_full':
      return 'This session has reached the amount of work the study can store, so this was not saved. What is already saved is kept: please submit your answer now.';
    case 'conflict':
      return 'This was changed in another tab or window of the study since you opened it, so it was not saved here.';
    case 'session_over':
      return 'Your session has ended, so this could not be saved. The page will show where you are now.';
    case 'wrong_step':
      return 'The study has moved on to another step. The page will show where you are now.';
    case 'study_unavailable':
      return 'The study has been closed by the researcher, so this could not be saved.';
    case 'invalid_input':
      return 'Some of what you entered could not be accepted. Please check the fields and try again.';
    case 'unauthorized':
    case 'forbidden':
      return 'Your session could not be confirmed. Please open the original study link again.';
    default:
      return 'Something went wrong on the study server. Please try again in a moment.';
  }
}
