import type { ChatMessage } from '../../lib/llm/provider';
import type { Condition, Task } from '../../common/study';
import type { MessageRow } from '../../lib/storage';

/**
 * The messages sent to the model: the condition's system prompt with the task instructions appended,
 * then the dialogue so far. Failed replies (interrupted / error) are left out: the participant never got
 * them as answers and they are being retried. Stopped replies stay in: the participant saw that text.
 */
export function buildConversation(condition: Condition, task: Task, history: MessageRow[]): ChatMessage[] {
  const materials = task.materials.length
    ? `\n\nFiles given to the participant: ${task.materials.map((m) => m.name + (m.description ? ` (${m.description})` : '')).join('; ')}.`
    : '';
  const system = `${condition.system_prompt.trim()}\n\n# The participant's task: ${task.title}\n\n${task.instructions.trim()}${materials}`;
  const messages: ChatMessage[] = [{ role: 'system', content: system }];
  for (const m of history) {
    if (m.role === 'assistant' && (m.status === 'interrupted' || m.status === 'error')) continue;
    if (m.role === 'assistant' && m.text.length === 0) continue;
    messages.push({ role: m.role, content: m.text });
  }
  return messages;
}

/** The last participant message when it still lacks a usable (complete or stopped) reply; otherwise null. */
export function unansweredUserMessage(history: MessageRow[]): MessageRow | null {
  const lastUser = [...history].reverse().find((m) => m.role === 'user');
  if (!lastUser) return null;
  const answered = history.some((m) => m.role === 'assistant' && m.replyTo === lastUser.id && (m.status === 'complete' || m.status === 'stopped'));
  return answered ? null : lastUser;
}
