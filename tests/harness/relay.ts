import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { Server as SocketServer } from 'socket.io';
import { forEachContentFragment, type StreamReader } from './streamReaders';

/**
 * The bare baseline for the load benchmark: a socket.io server that, for each `relay:chat` from a
 * client, streams a completion from the same OpenAI-compatible provider through the same `openai`
 * client and forwards every delta to that client. No database, no validation, no session state, so
 * the latency it adds is the floor that socket.io + the openai client impose; the platform's added
 * latency is reported as a ratio to it.
 *
 * Each `relay:chat` is acknowledged as soon as it is received, so the benchmark can compare the platform's
 * chat:send ack with the bare minimum a socket.io server on the same loaded loop gives.
 *
 * `reader` picks how the stream is read (streamReaders.ts): `sdk` (default) as a relay written from the
 * openai docs would, `tandem` with the platform's reader, so that the comparison isolates the platform's
 * own work.
 */

export interface RunningRelay {
  url: string;
  close(): Promise<void>;
}

export async function startRelay(options: { providerBaseURL: string; model?: string; port?: number; reader?: StreamReader }): Promise<RunningRelay> {
  const openai = new OpenAI({ baseURL: options.providerBaseURL, apiKey: 'relay', maxRetries: 0 });
  const http = createServer();
  const io = new SocketServer(http, { serveClient: false });
  io.on('connection', (socket) => {
    socket.on('relay:chat', async (payload: { id: string; text: string }, ack?: unknown) => {
      // Acknowledged on receipt, before the stream starts (the platform acks once the message is stored): the
      // floor for the platform's chat:send ack on the same loop.
      if (typeof ack === 'function') ack({ ok: true });
      try {
        const request = openai.chat.completions.create({
          model: options.model ?? 'timed-fake',
          messages: [{ role: 'user', content: String(payload?.text ?? '') }],
          stream: true,
        });
        await forEachContentFragment(request, options.reader ?? 'sdk', (text) => socket.emit('relay:delta', { id: payload.id, text }));
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
