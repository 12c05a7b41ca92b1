import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { Server as SocketServer } from 'socket.io';
import { readChatCompletionStream } from '../../server/llm/chatCompletionStream';

/**
 * The bare baseline for the load benchmark: a socket.io server that, for each `relay:chat` from a
 * client, streams a completion from the same OpenAI-compatible provider through the same `openai`
 * client and forwards every delta to that client. No database, no validation, no session state, so
 * the latency it adds is the floor that socket.io + the openai client impose; the platform's added
 * latency is reported as a ratio to it.
 *
 * `reader` picks how the stream is read: `sdk` (default) iterates the client's own Stream, as a relay
 * written from the openai docs would; `tandem` reads it with the platform's reader
 * (server/llm/chatCompletionStream.ts), so that the comparison isolates the platform's own work.
 */
export type RelayReader = 'sdk' | 'tandem';

export interface RunningRelay {
  url: string;
  close(): Promise<void>;
}

export async function startRelay(options: { providerBaseURL: string; model?: string; port?: number; reader?: RelayReader }): Promise<RunningRelay> {
  const openai = new OpenAI({ baseURL: options.providerBaseURL, apiKey: 'relay', maxRetries: 0 });
  const http = createServer();
  const io = new SocketServer(http, { serveClient: false });
  io.on('connection', (socket) => {
    socket.on('relay:chat', async (payload: { id: string; text: string }) => {
      try {
        const request = openai.chat.completions.create({
          model: options.model ?? 'timed-fake',
          messages: [{ role: 'user', content: String(payload?.text ?? '') }],
          stream: true,
        });
        const forward = (text: string | null | undefined): void => {
          if (text) socket.emit('relay:delta', { id: payload.id, text });
        };
        if (options.reader === 'tandem') {
          await readChatCompletionStream(await request.asResponse(), (part) => forward(part.choices?.[0]?.delta?.content));
        } else {
          for await (const part of await request) forward(part.choices[0]?.delta?.content);
        }
        socket.emit('relay:done', { id: payload.id });
      } catch (error) {
        socket.emit('relay:done', { id: payload.id, error: String(error) });
      }
    });
  });
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await new Promise<void>((resolve) => io.close(() => resolve()));
      http.closeAllConnections();
    },
  };
}
