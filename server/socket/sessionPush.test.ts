/**
 * Who hears a session's events on a single node, with real socket.io sockets: the session's own tab gets a push
 * directly; a step change or a saved draft is broadcast to other tabs only when the room holds another socket
 * (otherwise the broadcast would encode a whole SessionState for nobody); with a cluster adapter the other tabs may
 * be on other nodes, so the broadcast always goes out.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Server } from 'socket.io';
import { io as connect, type Socket as ClientSocket } from 'socket.io-client';
import { sessionRoom, type ParticipantServer } from './handlers';
import { otherTabsMayListen, sessionPush } from './sessionPush';

describe('sessionPush and otherTabsMayListen', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function serverWithTabs(): Promise<{ io: ParticipantServer; tab: (sessionId: string) => Promise<ClientSocket> }> {
    const http = createServer();
    const io = new Server(http) as unknown as ParticipantServer;
    io.use((socket, next) => {
      socket.data.sessionId = String(socket.handshake.auth.sessionId);
      next();
    });
    io.on('connection', (socket) => {
      void socket.join(sessionRoom(socket.data.sessionId));
      (socket.emit as (e: string) => void)('joined');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => void io.close(() => resolve())));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const tab = async (sessionId: string) => {
      const socket = connect(url, { auth: { sessionId }, transports: ['websocket'], forceNew: true, reconnection: false });
      cleanups.push(() => void socket.close());
      // The server joins the socket to its room in the connection handler, then says so.
      await new Promise<void>((resolve, reject) => socket.once('joined', () => resolve()).once('connect_error', reject));
      return socket;
    };
    return { io, tab };
  }

  it('a lone tab has nobody else to tell; a second tab of the same session has; another session does not count', async () => {
    const { io, tab } = await serverWithTabs();
    const single = otherTabsMayListen(io, 'none');
    const first = await tab('s1');
    await tab('s2');
    expect(single('s1')).toBe(false);
    expect(single('no-such-session')).toBe(false);
    const second = await tab('s1');
    expect(single('s1')).toBe(true);
    expect(single('s2')).toBe(false);
    // A cluster node cannot see the other nodes' tabs: it always broadcasts.
    expect(otherTabsMayListen(io, 'redis')('s2')).toBe(true);

    // And the session's own pushes reach both of its tabs, never another session's.
    const heard = (socket: ClientSocket) => new Promise<unknown>((resolve) => socket.once('chat:delta', resolve));
    const both = Promise.all([heard(first), heard(second)]);
    sessionPush(io, 'none')('s1', 'chat:delta', { replyId: 'r', text: 'x' });
    expect(await both).toEqual([{ replyId: 'r', text: 'x' }, { replyId: 'r', text: 'x' }]);
    // Once the second tab is gone, the first is alone again.
    const left = new Promise<void>((resolve) => io.of('/').adapter.on('leave-room', (room: string) => room === sessionRoom('s1') && resolve()));
    second.close();
    await left;
    expect(single('s1')).toBe(false);
  });
});
