import type { Step } from '../../../common/session';
import type { SessionRow } from '../contract/store';

/**
 * The session checks every one-call participant write makes first, in the PostgreSQL functions' order (migrations
 * 023, 032, 038): the session is over ('ended'), past its deadline at the instructions or the workspace
 * ('overdue'), or at another step than the write's ('wrong_step'); null when none applies.
 */
export function sessionRefusal(s: SessionRow, now: number, timeLimitMs: number, step: Step): 'ended' | 'overdue' | 'wrong_step' | null {
  if (s.status !== 'active') return 'ended';
  if (s.consentedAt !== null && now >= s.consentedAt + timeLimitMs && (s.step === 'instructions' || s.step === 'workspace')) return 'overdue';
  if (s.step !== step) return 'wrong_step';
  return null;
}
