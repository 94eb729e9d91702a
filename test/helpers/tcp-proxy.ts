/**
 * A TCP proxy on 127.0.0.1 in front of a real server (PostgreSQL in the store-outage test):
 * `cut()` destroys every open connection and refuses new ones (they are accepted and closed at
 * once, as a server that went away), `restore()` forwards again. Nothing leaves 127.0.0.1.
 */
import net from 'node:net';

export interface TcpProxy {
  /** The port the proxy listens on (127.0.0.1). */
  port: number;
  /** Connections accepted so far (forwarded or refused). */
  readonly accepted: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  let isCut = false;
  let accepted = 0;
  const server = net.createServer((client) => {
    accepted += 1;
    if (isCut) {
      client.destroy();
      return;
    }
    const upstream = net.connect({ host: target.host, port: target.port });
    open.add(client);
    open.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    get accepted() {
      return accepted;
    },
    cut() {
      isCut = true;
      for (const s of open) s.destroy();
      open.clear();
    },
    restore() {
      isCut = false;
    },
    async close() {
      isCut = true;
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
