import type { APIPromise } from 'openai/core/api-promise';
import type { Stream } from 'openai/core/streaming';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { readChatCompletionStream } from '../../lib/llm/chatCompletionStream';

/**
 * The two ways the benchmarks read a streamed chat completion: `sdk` iterates the `openai` client's own
 * Stream (as the openai docs show), `tandem` hands the response to the platform's reader
 * (lib/llm/chatCompletionStream.ts). Used by the bare relay and by `npm run bench:stream-reader`.
 */
export type StreamReader = 'sdk' | 'tandem';

/** Calls `onContent` with each non-empty content fragment of the streamed completion, in order. */
export async function forEachContentFragment(
  request: APIPromise<Stream<ChatCompletionChunk>>,
  reader: StreamReader,
  onContent: (text: string) => void,
): Promise<void> {
  const forward = (chunk: ChatCompletionChunk): void => {
    const text = chunk.choices?.[0]?.delta?.content;
    if (text) onContent(text);
  };
  if (reader === 'tandem') await readChatCompletionStream(await request.asResponse(), forward);
  else for await (const chunk of await request) forward(chunk);
}
