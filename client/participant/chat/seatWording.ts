import type { SessionState } from '../../../common/session';

/**
 * What the chat says, by who is on the other side: the study's assistant, a teamwork task's team, or nobody
 * (a teamwork seat worked alone). Keys, not copies: the seat's arm decides the words, the label the name.
 */
export interface ChatWording {
  heading: string;
  composerLabel: string;
  empty: string;
  /** The writer of a reply that is not a structured seat reply. */
  speaker: string;
}

export function chatWording(assistant: SessionState['assistant']): ChatWording {
  if (assistant.seat === 'alone')
    return {
      heading: 'Your task (you work alone)',
      composerLabel: 'Your message (nobody else takes part)',
      empty: 'Send a first message (for example “ready”) to receive your brief. You work on your own in this task: nobody reads or answers your messages.',
      speaker: 'The task',
    };
  if (assistant.seat === 'team')
    return {
      heading: 'Chat with your team',
      composerLabel: 'Message your team',
      empty: 'Send a first message (for example “ready”) to start: your brief and your team’s first messages then appear.',
      speaker: 'Your team',
    };
  return {
    heading: `Chat with ${assistant.label}`,
    composerLabel: 'Message the assistant',
    empty: `Ask ${assistant.label} anything about the task.`,
    speaker: assistant.label,
  };
}

/** True on a phone or tablet, whose on-screen keyboard has no Shift+Enter: the hints say "press Send" there. */
export function touchKeyboard(): boolean {
  return typeof window !== 'undefined' && typeof window.matchMedia === 'function' && window.matchMedia('(pointer: coarse)').matches;
}
