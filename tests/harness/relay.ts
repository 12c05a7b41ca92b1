import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
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
 *
 * Two echoes carry a request and its answers of given sizes and do nothing else, so `npm run bench:phases` can
 * measure what the bytes of each session step cost to move (the protocol's floor, without the platform's work):
 * `relay:echo` ({ pad, pushes }) pushes `relay:push` packets of the sizes in `pushes` but the last and acks with a
 * packet of the last size; `POST /relay/echo?bytes=N` reads the body and answers N bytes of JSON.
 */

export interface RunningRelay {
  url: string;
  close(): Promise<void>;
}

const MAX_ECHO_BYTES = 1_000_000;
/** A value whose socket.io packet is about `bytes` long: `42["relay:push",{"pad":""}]` is 28 characters, an ack `43<id>[{"pad":""}]` about 14. */
const padOf = (bytes: number, framing = 28) => ({ pad: 'x'.repeat(Math.max(0, bytes - framing)) });

/** POST /relay/echo?bytes=N: reads the body, answers about N bytes of JSON; anything else is a 404. */
function answerHttpEcho(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://relay');
  const bytes = Number(url.searchParams.get('bytes'));
  if (req.method !== 'POST' || url.pathname !== '/relay/echo' || !Number.isInteger(bytes) || bytes < 0 || bytes > MAX_ECHO_BYTES) {
    res.writeHead(404).end();
    return;
  }
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(padOf(bytes, 10))));
}

export async function startRelay(options: { providerBaseURL: string; model?: string; port?: number; reader?: StreamReader }): Promise<RunningRelay> {
  const openai = new OpenAI({ baseURL: options.providerBaseURL, apiKey: 'relay', maxRetries: 0 });
  const http = createServer(answerHttpEcho);
  const io = new SocketServer(http, { serveClient: false });
  io.on('connection', (socket) => {
    socket.on('relay:echo', (payload: { pad?: unknown; pushes?: unknown }, ack?: unknown) => {
      const sizes = Array.isArray(payload?.pushes) ? payload.pushes.map(Number).filter((n) => Number.isInteger(n) && n >= 0 && n <= MAX_ECHO_BYTES) : [];
      sizes.slice(0, -1).forEach((n) => socket.emit('relay:push', padOf(n)));
      if (typeof ack === 'function') ack(padOf(sizes.at(-1) ?? 0, 14));
    });
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
