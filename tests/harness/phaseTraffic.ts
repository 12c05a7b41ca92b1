/**
 * The bytes a session step moves, and the same bytes through the bare relay's echoes (relay.ts): what
 * carrying each step costs a socket.io (or plain HTTP) server that does nothing else. `npm run bench:phases` prints
 * it as the step's floor beside what the platform used, so the platform's own work in a step is the difference.
 *
 * Counted at the engine.io level on the participant's side: every socket.io packet sent (the request) and received
 * (the ack and every push the step caused: states, deltas, chat:done), with its length.
 */
import type { Socket } from 'socket.io-client';

/** One step's traffic, per participant. */
export interface StepTraffic {
  /** Socket.io packets sent and their mean length (characters; the payloads are ASCII JSON). */
  sent: number;
  sentBytes: number;
  /** Packets received (acks and pushes) and their mean length. */
  received: number;
  receivedBytes: number;
}

interface EnginePacket {
  type: string;
  data?: unknown;
}
interface PacketEmitter {
  on(event: 'packet' | 'packetCreate', listener: (packet: EnginePacket) => void): void;
}

const lengthOf = (p: EnginePacket) => (typeof p.data === 'string' ? p.data.length : 0);

/** Counts the socket.io packets of every socket watched, between start() and stop(). */
export class TrafficTally {
  private counting = false;
  private sent = { n: 0, bytes: 0 };
  private received = { n: 0, bytes: 0 };

  /** Watches a connected socket's engine (messages only: pings and the handshake are the transport's). */
  watch(socket: Socket): void {
    const engine = socket.io.engine as unknown as PacketEmitter;
    engine.on('packetCreate', (p) => {
      if (this.counting && p.type === 'message') (this.sent.n += 1), (this.sent.bytes += lengthOf(p));
    });
    engine.on('packet', (p) => {
      if (this.counting && p.type === 'message') (this.received.n += 1), (this.received.bytes += lengthOf(p));
    });
  }

  start(): void {
    this.sent = { n: 0, bytes: 0 };
    this.received = { n: 0, bytes: 0 };
    this.counting = true;
  }

  /** The step's traffic per participant. */
  stop(participants: number): StepTraffic {
    this.counting = false;
    const mean = (c: { n: number; bytes: number }) => (c.n === 0 ? 0 : c.bytes / c.n);
    return { sent: this.sent.n / participants, sentBytes: mean(this.sent), received: this.received.n / participants, receivedBytes: mean(this.received) };
  }
}

/**
 * One participant's share of a step through the relay: as many requests as the step sent (at least one), each
 * `relay:echo` of the step's request length, with the step's received packets spread over them (pushes, then the ack).
 */
export async function echoStep(socket: Socket, traffic: StepTraffic): Promise<void> {
  const requests = Math.max(1, Math.round(traffic.sent));
  const answers = Math.max(requests, Math.round(traffic.received));
  for (let r = 0; r < requests; r++) {
    const mine = Math.floor(answers / requests) + (r < answers % requests ? 1 : 0);
    const pushes = Array.from({ length: mine }, () => Math.round(traffic.receivedBytes));
    // The packet is `42<ack id>["relay:echo",{"pad":"…","pushes":[…]}]`: the pad makes up the rest of the length.
    const framing = `42${r}["relay:echo",${JSON.stringify({ pad: '', pushes })}]`.length;
    const pad = 'x'.repeat(Math.max(0, Math.round(traffic.sentBytes) - framing));
    await new Promise<void>((resolve) => socket.emit('relay:echo', { pad, pushes }, () => resolve()));
  }
}

/** An HTTP request through the relay's echo: a body of `sentBytes`, an answer of `receivedBytes`. */
export async function echoHttp(relayUrl: string, sentBytes: number, receivedBytes: number): Promise<void> {
  const res = await fetch(`${relayUrl}/relay/echo?bytes=${Math.round(receivedBytes)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ pad: 'x'.repeat(Math.max(0, Math.round(sentBytes) - 10)) }),
  });
  if (res.status !== 200) throw new Error(`relay echo: HTTP ${res.status}`);
  await res.text();
}
