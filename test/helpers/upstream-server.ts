/**
 * A stand-in for the upstream data sources on 127.0.0.1: each path answers a file, an HTTP
 * status, or a body cut off half-way (headers with the full Content-Length, half the bytes,
 * then the socket is destroyed). A path can be held until the test releases it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type UpstreamAnswer =
  | { kind: 'file'; body: Buffer | string }
  | { kind: 'halfway'; body: Buffer | string }
  | { kind: 'status'; status: number };

export interface UpstreamServer {
  url(path: string): string;
  set(path: string, answer: UpstreamAnswer): void;
  /** Requests to `path` wait until the returned function is called. */
  hold(path: string): () => void;
  /** Paths requested so far, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startUpstreamServer(): Promise<UpstreamServer> {
  const answers = new Map<string, UpstreamAnswer>();
  const holds = new Map<string, Promise<void>>();
  const requests: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const path = req.url ?? '';
    requests.push(path);
    await holds.get(path);
    const answer = answers.get(path) ?? { kind: 'status', status: 404 };
    if (answer.kind === 'status') {
      res.writeHead(answer.status).end();
      return;
    }
    const body = Buffer.from(answer.body);
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length });
    if (answer.kind === 'file') {
      res.end(body);
      return;
    }
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => {
      // Let the first half reach the client before the connection dies.
      setTimeout(() => res.socket?.destroy(), 20);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path) => `${base}${path}`,
    set: (path, answer) => answers.set(path, answer),
    hold(path) {
      let release: () => void = () => undefined;
      holds.set(
        path,
        new Promise<void>((resolve) => {
          release = () => {
            holds.delete(path);
            resolve();
          };
        }),
      );
      return () => release();
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
