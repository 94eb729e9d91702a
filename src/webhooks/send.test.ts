/**
 * One attempt against receivers on 127.0.0.1: connected to the given address with the URL's
 * Host, redirects not followed, a huge answer read only to 64 KiB, a silent one timed out.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RESPONSE_BYTES, sendWebhook } from './send.ts';

let server: http.Server;
let port: number;
const seen: { path: string; host: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({ path: req.url ?? '', host: req.headers.host ?? '' });
    req.resume();
    if (req.url === '/redirect') {
      res.writeHead(302, { location: '/ok' });
      res.end();
    } else if (req.url === '/huge') {
      res.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 'x');
      // Writes until the client goes away: far more than 64 KiB if it kept reading.
      const pump = () => {
        while (res.write(chunk)) if (res.destroyed) return;
        res.once('drain', pump);
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    } else if (req.url === '/silent') {
      // never answers
    } else res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const send = (path: string, timeoutMs?: number) =>
  sendWebhook({
    url: new URL(`http://hooks.example.test:${port}${path}`),
    address: '127.0.0.1',
    family: 4,
    host: 'hooks.example.test',
    body: '{}',
    headers: { 'X-Netrep-Event-Id': 'e1' },
    ...(timeoutMs ? { timeoutMs } : {}),
  });

describe('sendWebhook', () => {
  it('connects to the checked address, keeps the Host of the URL', async () => {
    expect(await send('/ok?x=1')).toEqual({ status: 200, error: null });
    expect(seen.at(-1)).toEqual({ path: '/ok?x=1', host: `hooks.example.test:${port}` });
  });

  it('does not follow a redirect', async () => {
    const before = seen.length;
    expect(await send('/redirect')).toEqual({ status: 302, error: 'redirect (HTTP 302) not followed' });
    expect(seen.length).toBe(before + 1);
  });

  it(`stops reading an answer at ${MAX_RESPONSE_BYTES} bytes`, async () => {
    const started = Date.now();
    expect((await send('/huge')).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('gives up on a silent receiver at the timeout', async () => {
    expect(await send('/silent', 200)).toEqual({ status: null, error: 'no answer within 200 ms' });
  });

  it('reports a refused connection', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const p = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const r = await sendWebhook({
      url: new URL(`http://127.0.0.1:${p}/`),
      address: '127.0.0.1',
      family: 4,
      host: '127.0.0.1',
      body: '{}',
      headers: {},
    });
    expect(r.status).toBeNull();
    expect(r.error).toMatch(/ECONNREFUSED/);
  });
});
