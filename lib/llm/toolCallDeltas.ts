/**
 * Tool calls and refusals of a chat completion, read from a streamed reply (fragments keyed by index:
 * the first fragment of a call carries its id and name, later ones append to `arguments`) or from a
 * non-streamed message. Only `function` calls are kept; `arguments` stays the model's raw text, since a
 * malformed call is the caller's to report, not the transport's.
 */
import type { ChatCompletionChunk, ChatCompletionMessage } from 'openai/resources/chat/completions';
import type { ToolCall } from './provider';

export class ToolCallAccumulator {
  private readonly calls: Array<{ id: string; name: string; arguments: string }> = [];
  refusal = '';

  add(delta: ChatCompletionChunk.Choice.Delta | undefined): void {
    if (!delta) return;
    if (delta.refusal) this.refusal += delta.refusal;
    for (const part of delta.tool_calls ?? []) {
      const call = (this.calls[part.index] ??= { id: '', name: '', arguments: '' });
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name += part.function.name;
      if (part.function?.arguments) call.arguments += part.function.arguments;
    }
  }

  /** The calls in index order (gaps dropped); undefined when there were none. */
  toolCalls(): ToolCall[] | undefined {
    const calls = this.calls.filter(Boolean).map((c, i): ToolCall => ({ id: c.id || `call_${i}`, type: 'function', function: { name: c.name, arguments: c.arguments } }));
    return calls.length > 0 ? calls : undefined;
  }
}

/** Tool calls of a non-streamed reply's message; undefined when there were none. */
export function messageToolCalls(message: ChatCompletionMessage | undefined): ToolCall[] | undefined {
  const calls = (message?.tool_calls ?? []).flatMap((c, i): ToolCall[] =>
    c.type === 'function' ? [{ id: c.id || `call_${i}`, type: 'function', function: { name: c.function.name, arguments: c.function.arguments ?? '' } }] : [],
  );
  return calls.length > 0 ? calls : undefined;
}
