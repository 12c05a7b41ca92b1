/** The `events` row as both engines return it (payload as JSON text on both) and its mapping. */
import type { EventRow } from '../contract/store';

export interface EventRaw {
  session_id: string;
  seq: number;
  type: string;
  payload: string;
  server_ts: number;
  client_ts: number | null;
}

export const toEventRow = (r: EventRaw): EventRow => ({
  sessionId: r.session_id,
  seq: r.seq,
  type: r.type,
  payload: JSON.parse(r.payload) as unknown,
  serverTs: r.server_ts,
  clientTs: r.client_ts,
});
