/** Prompt-side token accounting for providers that report no usage of their own (offline responders). */
import { countTokens } from '../../common/tokens';
import { messageText, type ChatMessage } from './provider';

/** Prompt tokens as OpenAI's chat format counts them: 3 per message + content, plus 3 for the reply (text parts only). */
export function promptTokenCount(messages: readonly ChatMessage[]): number {
  return messages.reduce((n, m) => n + 3 + countTokens(messageText(m)), 3);
}
