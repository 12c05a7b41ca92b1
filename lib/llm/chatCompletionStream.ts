/**
 * Reads a streamed chat completion (server-sent events) from the HTTP response the `openai` client
 * returned (`.asResponse()`), calling `onChunk` for each parsed chunk, synchronously as each network
 * read is parsed.
 *
 * Why not the client's own `Stream`: it passes every chunk through four nested async generators
 * (bytes → SSE chunks → lines → events → JSON), a promise hop per layer per token. Reading 200 concurrent
 * streams of 200 tokens costs 42 µs CPU per token that way and 33.5 µs with eventsource-parser
 * (`npm run bench:stream-reader`), and at 500 participants that margin is what keeps the server's added
 * latency within the bare relay's (BENCHMARKS.md). The request itself, its headers, timeouts and every non-2xx
 * status (→ `APIError` subclasses) stay with the client.
 *
 * Semantics follow the client's Stream (openai 6.x core/streaming): `data: [DONE]` ends the stream (later
 * events are ignored), a chunk carrying `error` throws an `APIError` without a status, unparseable JSON
 * throws, and the body is cancelled if reading stops early. One difference: an `event: error` always
 * throws (the client's Stream yields it as a chunk when its data has no `error` field).
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';

/** No chat-completion event comes near this; a peer that never ends its line cannot fill our memory. */
const MAX_EVENT_CHARS = 4 * 1024 * 1024;

export async function readChatCompletionStream(response: Response, onChunk: (chunk: ChatCompletionChunk) => void): Promise<void> {
  if (!response.body) throw new OpenAI.OpenAIError('The streamed response had no body');
  let done = false;
  // eventsource-parser calls back from inside feed(); an error there is kept and thrown after it.
  let failure: { error: unknown } | undefined;
  const onEvent = (event: EventSourceMessage): void => {
    if (done || failure) return;
    if (event.data.startsWith('[DONE]')) {
      done = true;
      return;
    }
    let data: unknown;
    try {
      data = JSON.parse(event.data);
    } catch (error) {
      failure = { error: new OpenAI.OpenAIError(`Could not parse a stream event as JSON: ${(error as Error).message}`) };
      return;
    }
    const payload = data as { error?: unknown; message?: unknown } | null;
    if (event.event === 'error') {
      failure = { error: new OpenAI.APIError(undefined, payload?.error as object | undefined, typeof payload?.message === 'string' ? payload.message : undefined, undefined) };
      return;
    }
    if (payload && payload.error) {
      failure = { error: new OpenAI.APIError(undefined, payload.error as object, undefined, response.headers) };
      return;
    }
    try {
      onChunk(data as ChatCompletionChunk);
    } catch (error) {
      failure = { error };
    }
  };
  const parser = createParser({
    onEvent,
    // Unknown fields and bad `retry:` values are ignored, as the SSE spec says; only overflow is fatal.
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') failure ??= { error };
    },
    maxBufferSize: MAX_EVENT_CHARS,
  });
  const decoder = new TextDecoder();
  // Leaving the loop early (throw) cancels the body, which releases the connection.
  for await (const bytes of response.body) {
    parser.feed(decoder.decode(bytes, { stream: true }));
    if (failure) throw failure.error;
  }
  parser.feed(decoder.decode());
  if (failure) throw failure.error;
}
