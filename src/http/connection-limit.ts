/**
 * The per-client connection cap on the HTTP server: every accepted connection passes here
 * first (before the socket front and Node's HTTP handling); one over the client's cap is
 * answered 429 `TOO_MANY_CONNECTIONS` and closed without being read.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionCap } from '../core/connection-cap.ts';
import { AppError } from '../core/errors.ts';
import { answerAndClose, type Rejected } from './client-errors.ts';

export function limitConnections(server: Server, cap: ConnectionCap, max: number, rejected: Rejected): void {
  const listeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const release = cap.admit(socket.remoteAddress);
    if (release === null) {
      rejected('TOO_MANY_CONNECTIONS');
      answerAndClose(
        socket,
        new AppError('TOO_MANY_CONNECTIONS', `more than ${max} open connections from this address`, {
          headers: { 'retry-after': '1' },
        }),
      );
      return;
    }
    socket.once('close', release);
    for (const listener of listeners) listener.call(server, socket);
  });
}
