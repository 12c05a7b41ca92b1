import { io, type Socket } from 'socket.io-client';
import { preciseNowMs } from '../../research/simulation/clock';
import { MarkerTracker } from '../../research/simulation/tokenMarkers';

/**
 * Drives the bare relay (relay.ts) with the same shape of traffic the load benchmark sends to the
 * platform: `participants` clients started `rampMs` apart, each thinking twice before its first
 * message (the simulated participant reads the instructions, then types) and once between a reply's
 * end and the next message, `thinkMs` drawn uniformly from [min, max] as for the participants.
 * Records each token's provider-to-client latency, each message's ack latency and how many replies
 * streamed at once.
 */
export interface RelayTrafficResult {
  tokenLatenciesMs: number[];
  /** relay:chat emit → its ack, per message that was acked. */
  ackLatenciesMs: number[];
  replies: number;
  failedReplies: number;
  wallMs: number;
  /** Time-averaged number of replies streaming at the same moment. */
  meanConcurrentReplies: number;
}

export async function runRelayTraffic(options: {
  url: string;
  participants: number;
  turns: number;
  thinkMs: { min: number; max: number };
  rampMs?: number;
  /**
   * Replay a recorded timeline instead of thinking: `schedule[i][k]` is when (ms after the start)
   * client i sends its k-th message — e.g. the moments the platform's participants sent theirs — or
   * as soon as its previous reply has ended, if that is later. Overrides thinkMs and rampMs.
   */
  schedule?: number[][];
  /** Stop waiting for a reply after this long. */
  replyTimeoutMs?: number;
}): Promise<RelayTrafficResult> {
  const tokenLatenciesMs: number[] = [];
  const ackLatenciesMs: number[] = [];
  let replies = 0;
  let failedReplies = 0;
  let streamingMs = 0;
  const started = performance.now();
  const think = () => new Promise((r) => setTimeout(r, options.thinkMs.min + Math.random() * Math.max(0, options.thinkMs.max - options.thinkMs.min)));

  const sleepUntil = (offsetMs: number) => new Promise((r) => setTimeout(r, Math.max(0, started + offsetMs - performance.now())));

  async function oneClient(index: number): Promise<void> {
    const plan = options.schedule?.[index];
    const socket: Socket = io(options.url, { transports: ['websocket'], reconnection: false, forceNew: true });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    try {
      if (!plan) await think();
      const turns = plan ? plan.length : options.turns;
      for (let turn = 0; turn < turns; turn++) {
        if (plan) await sleepUntil(plan[turn]!);
        else await think();
        const replyStarted = performance.now();
        const id = `${index}-${turn}`;
        const tracker = new MarkerTracker();
        const done = new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), options.replyTimeoutMs ?? 60_000);
          const onDelta = (d: { id: string; text: string }) => {
            if (d.id !== id) return;
            tokenLatenciesMs.push(...tracker.push(d.text, preciseNowMs()));
          };
          socket.on('relay:delta', onDelta);
          socket.once('relay:done', (d: { id: string; error?: string }) => {
            clearTimeout(timer);
            socket.off('relay:delta', onDelta);
            resolve(d.id === id && !d.error);
          });
        });
        const sentAt = performance.now();
        socket.emit('relay:chat', { id, text: `message ${turn} from ${index}` }, () => ackLatenciesMs.push(performance.now() - sentAt));
        if (await done) replies += 1;
        else failedReplies += 1;
        streamingMs += performance.now() - replyStarted;
      }
    } finally {
      socket.close();
    }
  }

  await Promise.all(
    Array.from({ length: options.schedule?.length ?? options.participants }, async (_, i) => {
      if (options.rampMs && !options.schedule) await new Promise((r) => setTimeout(r, i * options.rampMs!));
      await oneClient(i);
    }),
  );
  const wallMs = performance.now() - started;
  return { tokenLatenciesMs, ackLatenciesMs, replies, failedReplies, wallMs, meanConcurrentReplies: streamingMs / wallMs };
}
