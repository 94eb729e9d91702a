/**
 * A raw TCP connection to 127.0.0.1 for tests that write bytes themselves (slow clients,
 * hostile framing): connected, errors swallowed, and `closed` resolving with the ms from
 * connect to the server's close.
 */
import net from 'node:net';

export interface RawConnection {
  socket: net.Socket;
  /** Resolves with ms since connect when the connection closes. */
  closed: Promise<number>;
}

export async function connectRaw(port: number): Promise<RawConnection> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const started = Date.now();
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - started)));
  return { socket, closed };
}
