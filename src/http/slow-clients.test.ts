/**
 * Slow and greedy HTTP clients over real sockets on 127.0.0.1, with the limits made short through
 * the configuration so each case ends in about a second: a head trickled in, a body that stalls,
 * an idle keep-alive connection (on Node's path and on the socket front), and one address opening
 * more connections than its cap. Node's own parser rejections answer the error envelope.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntelTestApp, type IntelTestApp } from '../../test/helpers/intel-app.ts';
import { connectRaw, type RawConnection } from '../../test/helpers/raw-socket.ts';
import { skipStore } from '../../test/helpers/stores.ts';
import type { HttpServices } from './context.ts';
import { envelope } from './schemas.ts';

const HEADERS_MS = 300;
const REQUEST_MS = 600;
const KEEP_ALIVE_MS = 500;
/** The check interval (a quarter of the shorter limit) plus a loaded machine's scheduling. */
const SLACK_MS = 2500;

function slowRoutes(app: FastifyInstance, _services: HttpServices): void {
  app.post(
    '/v1/public/probe-slow',
    {
      config: { access: { kind: 'none' } },
      schema: { response: { 200: envelope(Type.Object({ ok: Type.Boolean() })) } },
    },
    async () => ({ data: { ok: true } }),
  );
}

interface Session extends RawConnection {
  /** Everything received so far. */
  text: () => string;
}

async function open(port: number): Promise<Session> {
  const raw = await connectRaw(port);
  let text = '';
  raw.socket.on('data', (d: Buffer) => {
    text += d.toString('latin1');
  });
  return { ...raw, text: () => text };
}

/** Writes `piece` every `everyMs` until the connection closes; resolves with the time it closed. */
async function trickle(s: Session, piece: string, everyMs: number): Promise<number> {
  const timer = setInterval(() => {
    if (!s.socket.destroyed) s.socket.write(piece);
  }, everyMs);
  try {
    return await s.closed;
  } finally {
    clearInterval(timer);
  }
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: { data: { error: string; code: string }; meta: { request_id: string } };
}

function firstAnswer(text: string): Answer {
  const end = text.indexOf('\r\n\r\n');
  const head = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const c = line.indexOf(':');
    headers[line.slice(0, c).toLowerCase()] = line.slice(c + 1).trim();
  }
  const length = Number(headers['content-length']);
  return {
    status: Number(head[0]?.split(' ')[1]),
    headers,
    body: JSON.parse(text.slice(end + 4, end + 4 + length)),
  };
}

function expectEnvelope(text: string, status: number, code: string): Answer {
  const answer = firstAnswer(text);
  expect(answer.status, text.slice(0, 200)).toBe(status);
  expect(answer.body.data.code).toBe(code);
  expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(answer.body.meta.request_id).toBe(answer.headers['x-request-id']);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  return answer;
}

describe.skipIf(skipStore('sqlite'))('slow HTTP clients (sqlite)', () => {
  let t: IntelTestApp;
  let port: number;
  let key: string;

  beforeAll(async () => {
    t = await createIntelTestApp('sqlite', {
      routes: [slowRoutes],
      config: {
        httpHeadersTimeoutMs: HEADERS_MS,
        httpRequestTimeoutMs: REQUEST_MS,
        httpKeepAliveTimeoutMs: KEEP_ALIVE_MS,
        httpMaxConnectionsPerClient: 4,
      },
    });
    port = Number(new URL(await t.app.listen()).port);
    key = await t.key({ tier: 'enterprise', permissions: ['ip:read'] });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a head trickled in a field at a time is cut with 408 REQUEST_TIMEOUT', async () => {
    const s = await open(port);
    s.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const closedAfter = await trickle(s, 'X-Slow: a\r\n', 50);
    expect(closedAfter).toBeLessThan(HEADERS_MS + SLACK_MS);
    expectEnvelope(s.text(), 408, 'REQUEST_TIMEOUT');
  });

  it('a connection that sends nothing is closed after the head timeout', async () => {
    const s = await open(port);
    const closedAfter = await s.closed;
    expect(closedAfter).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(closedAfter).toBeLessThan(HEADERS_MS + SLACK_MS);
  });

  it('a body announced at 100000 bytes and trickled a byte at a time is cut with 408', async () => {
    const s = await open(port);
    s.socket.write(
      'POST /v1/public/probe-slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{',
    );
    const closedAfter = await trickle(s, ' ', 50);
    expect(closedAfter).toBeGreaterThanOrEqual(REQUEST_MS - 50);
    expect(closedAfter).toBeLessThan(REQUEST_MS + SLACK_MS);
    expectEnvelope(s.text(), 408, 'REQUEST_TIMEOUT');
  });

  it('a body that arrives in time is answered', async () => {
    const s = await open(port);
    s.socket.write(
      'POST /v1/public/probe-slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{',
    );
    await new Promise((r) => setTimeout(r, 100));
    s.socket.write('}');
    await expect.poll(() => s.text()).toContain('"ok":true');
    s.socket.destroy();
  });

  it.each([
    ['on Node’s path', () => 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['on the socket front', () => `GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`],
  ])('an idle keep-alive connection %s is closed after the keep-alive timeout', async (_where, request) => {
    const s = await open(port);
    s.socket.write(request());
    await expect.poll(() => s.text()).toMatch(/^HTTP\/1\.1 200/);
    const closedAfter = await s.closed;
    expect(closedAfter).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 100);
    expect(closedAfter).toBeLessThan(KEEP_ALIVE_MS + SLACK_MS);
  });

  it('a client that closes its side is closed at once (it no longer counts against its cap)', async () => {
    const s = await open(port);
    s.socket.write(`GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`);
    await expect.poll(() => s.text()).toMatch(/^HTTP\/1\.1 200/);
    s.socket.end();
    expect(await s.closed).toBeLessThan(KEEP_ALIVE_MS);
  });

  it('one address over its connection cap gets 429 TOO_MANY_CONNECTIONS; a freed slot is usable again', async () => {
    const held = await Promise.all([1, 2, 3, 4].map(() => open(port)));
    const extra = await open(port);
    const closedAfter = await extra.closed;
    expect(closedAfter).toBeLessThan(SLACK_MS);
    const refused = expectEnvelope(extra.text(), 429, 'TOO_MANY_CONNECTIONS');
    expect(refused.headers['retry-after']).toBe('1');
    held[0]?.socket.destroy();
    await held[0]?.closed;
    await new Promise((r) => setTimeout(r, 50));
    const again = await open(port);
    again.socket.write(`GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`);
    await expect.poll(() => again.text()).toMatch(/^HTTP\/1\.1 200/);
    for (const s of [...held, again]) s.socket.destroy();
    // The server sees those closes a moment later; then the slots are free for the next tests.
    const healthz = async () => {
      const probe = await open(port);
      probe.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await probe.closed;
      return firstAnswer(probe.text()).status;
    };
    await expect.poll(healthz).toBe(200);
  });

  it.each([
    ['a bad Content-Length', 'POST /v1/public/probe-slow HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n'],
    [
      'two Content-Lengths',
      'POST /v1/public/probe-slow HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n{}',
    ],
    ['obs-fold', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: b\r\n folded\r\n\r\n'],
    ['an unknown method', 'BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a bare LF line', 'GET /healthz HTTP/1.1\nHost: x\r\n\r\n'],
    ['no Host', 'GET /healthz HTTP/1.1\r\n\r\n'],
    ['no Host on the lookup route', 'GET /v1/ip/8.8.8.8 HTTP/1.1\r\nX-API-Key: k\r\n\r\n'],
    ['two Hosts', 'GET /healthz HTTP/1.1\r\nHost: x\r\nhost: y\r\n\r\n'],
    ['garbage', '\u0001\u0002\u0003 nonsense\r\n\r\n'],
    [
      'Content-Length with chunked',
      'POST /v1/public/probe-slow HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n',
    ],
  ])('%s: 400 MALFORMED_REQUEST in the envelope', async (_what, raw) => {
    const s = await open(port);
    s.socket.write(raw);
    await s.closed;
    expectEnvelope(s.text(), 400, 'MALFORMED_REQUEST');
  });

  it('an Expect other than 100-continue: 417 EXPECTATION_FAILED; CONNECT: 405, in the envelope', async () => {
    const expectation = await open(port);
    expectation.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n');
    await expectation.closed;
    expectEnvelope(expectation.text(), 417, 'EXPECTATION_FAILED');
    const connect = await open(port);
    connect.socket.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    await connect.closed;
    expectEnvelope(connect.text(), 405, 'METHOD_NOT_ALLOWED');
  });

  it.each([
    ['on Node’s path', (url: string) => `GET /healthz?q=${url} HTTP/1.1\r\nHost: x\r\n\r\n`],
    [
      'on the socket front',
      (url: string) => `GET /v1/ip/${url} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`,
    ],
  ])('a URL over 16 KiB %s: 431 REQUEST_HEADER_TOO_LARGE in the envelope', async (_where, request) => {
    const s = await open(port);
    s.socket.write(request('1'.repeat(17 * 1024)));
    await s.closed;
    expectEnvelope(s.text(), 431, 'REQUEST_HEADER_TOO_LARGE');
  });

  it('counts each of those answers in netrep_http_rejected_total by code', async () => {
    const s = await open(port);
    s.socket.write('GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await s.closed;
    const count = (code: string) =>
      Number(
        new RegExp(`^netrep_http_rejected_total\\{code="${code}"\\} (\\d+)$`, 'm').exec(s.text())?.[1] ?? 0,
      );
    expect(count('REQUEST_TIMEOUT')).toBeGreaterThanOrEqual(2);
    expect(count('TOO_MANY_CONNECTIONS')).toBeGreaterThanOrEqual(1);
    expect(count('MALFORMED_REQUEST')).toBeGreaterThanOrEqual(10);
    expect(count('REQUEST_HEADER_TOO_LARGE')).toBe(2);
    expect(count('EXPECTATION_FAILED')).toBe(1);
  });

  it('after all that the server still answers both paths', async () => {
    const s = await open(port);
    s.socket.write(
      `GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    await expect.poll(() => s.text().match(/HTTP\/1\.1 200/g)?.length ?? 0).toBe(2);
    s.socket.destroy();
  });
});
