import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../common/envelope';
import { RequestError } from '../socket/errors';
import { actionMessageOf, platformOf, problemOf } from './errorMessages';

const SERVER_TEXT = 'study "travel-planning" is not accepting participants (status closed)';

describe('messages for participants', () => {
  it('every error code gets words for people, never the server text', () => {
    for (const code of [...ErrorCode.options, 'disconnected', 'timeout'] as const) {
      const error = new RequestError(code, SERVER_TEXT);
      const problem = problemOf(error, 'prolific');
      expect(problem.title.length, code).toBeGreaterThan(0);
      expect(problem.nextSteps.length, code).toBeGreaterThan(0);
      expect(JSON.stringify(problem), code).not.toContain('status closed');
      expect(actionMessageOf(error), code).not.toContain('status closed');
    }
  });

  it('says what to do: back to the platform when the study is closed, try again only when that can help', () => {
    const closed = problemOf(new RequestError('study_unavailable', SERVER_TEXT), 'prolific');
    expect(closed.retryable).toBe(false);
    expect(closed.nextSteps[0]).toContain('Go back to Prolific and return the study');
    expect(problemOf(new RequestError('study_unavailable', SERVER_TEXT), 'mturk').nextSteps[0]).toContain('return the HIT');
    expect(problemOf(new RequestError('disconnected', 'x'), null).retryable).toBe(true);
    expect(problemOf(new RequestError('rate_limited', 'x'), null).retryable).toBe(true);
    expect(problemOf(new RequestError('not_found', 'x'), null).retryable).toBe(false);
    expect(problemOf(new Error('boom'), null).title).toBe('Something went wrong on our side');
  });

  it('tells a participant whose session storage is full to submit, and a stale tab why it was not saved', () => {
    const full = actionMessageOf(new RequestError('storage_full', 'session storage budget used up: 20 MB'));
    expect(full).toContain('not saved');
    expect(full).toContain('please submit your answer now');
    expect(full).not.toContain('budget');
    expect(actionMessageOf(new RequestError('conflict', 'stale draft'))).toContain('another tab');
  });

  it('recognises the platform from the study link', () => {
    expect(platformOf({ raw: { PROLIFIC_PID: 'p1', STUDY_ID: 's' } })).toBe('prolific');
    expect(platformOf({ raw: { workerId: 'w1', assignmentId: 'a1' } })).toBe('mturk');
    expect(platformOf({ raw: { participant_label: 'x' } })).toBeNull();
  });
});
