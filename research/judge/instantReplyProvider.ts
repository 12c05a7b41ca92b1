/**
 * The shape shared by the offline demo judge and annotator: an `LlmProvider` that answers at once
 * (one delta, no network) with text computed from the request, names itself as both provider and
 * model, and reports usage counted with o200k_base the way the chat API counts it.
 */
import { messageText, type CompletionRequest, type CompletionResult, type LlmProvider } from '../../lib/llm/provider';
import { countTokens } from '../../common/tokens';
import { promptTokenCount } from '../../lib/llm/tokens';

/** The text of the first user message of a request (its text parts, when it has images; '' when there is none). */
export function firstUserText(request: CompletionRequest): string {
  const first = request.messages.find((m) => m.role === 'user');
  return first ? messageText(first) : '';
}

export class InstantReplyProvider implements LlmProvider {
  constructor(
    readonly name: string,
    private readonly reply: (request: CompletionRequest) => string,
  ) {}

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const started = Date.now();
    const text = this.reply(request);
    request.onDelta?.(text);
    const promptTokens = promptTokenCount(request.messages);
    const completionTokens = countTokens(text);
    return {
      text,
      usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
      provider: this.name,
      model: this.name,
      providerUrl: null,
      systemFingerprint: null,
      finishReason: 'stop',
      ttftMs: null,
      latencyMs: Date.now() - started,
      attempts: 1,
      interrupted: false,
    };
  }
}
