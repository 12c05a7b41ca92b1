/**
 * Timestamped provider tokens. The load benchmark's fake provider emits each token as
 * ` [t<seq>@<sendTimeMs>]`, so the client can tell, for every token that reaches it, when that token
 * left the provider, without any shared state between the processes. The marker survives any
 * re-chunking by the platform: we parse the accumulated reply text, and a marker counts as arrived
 * when the delta that completes it arrives.
 */

const MARKER = /\[t(\d+)@(\d+(?:\.\d+)?)\]/g;

export function markedToken(seq: number, sendTimeMs: number): string {
  return ` [t${seq}@${sendTimeMs.toFixed(3)}]`;
}

export interface TokenMarker {
  seq: number;
  sentAtMs: number;
}

/** Every complete marker in `text`, in order. */
export function parseMarkers(text: string): TokenMarker[] {
  const found: TokenMarker[] = [];
  for (const m of text.matchAll(MARKER)) {
    found.push({ seq: Number(m[1]), sentAtMs: Number(m[2]) });
  }
  return found;
}

/**
 * Feeds streamed deltas one at a time and reports, for each, the markers it completed, so that a
 * marker split across two deltas is timed by the second one. Only the unparsed tail is kept, so the
 * cost per delta stays constant however long the reply grows.
 */
export class MarkerTracker {
  private tail = '';
  private seen = 0;
  /** Returns the token-to-arrival latencies (ms) of markers completed by this delta. */
  push(delta: string, arrivedAtMs: number): number[] {
    this.tail += delta;
    const latencies: number[] = [];
    let end = 0;
    for (const m of this.tail.matchAll(MARKER)) {
      latencies.push(arrivedAtMs - Number(m[2]));
      end = m.index + m[0].length;
    }
    this.seen += latencies.length;
    // Keep only what may still become a marker: from the last "[" after the last complete one.
    const rest = this.tail.slice(end);
    const open = rest.lastIndexOf('[');
    this.tail = open === -1 ? '' : rest.slice(open);
    return latencies;
  }
  get markerCount(): number {
    return this.seen;
  }
}
