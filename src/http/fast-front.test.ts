/**
 * The socket front over raw TCP: pipelined lookups answered in order, a connection handed to
 * Node at the first request the front does not take (with the bytes it has not answered),
 * heads split across reads, HTTP/1.0, bodies, missing Host, and a prompt close with idle
 * keep-alive connections held. readHead is checked on its own against hostile heads.
 */
import http from 'node:http';
import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntelTestApp, type IntelTestApp } from '../../test/helpers/intel-app.ts';
import { skipStore } from '../../test/helpers/stores.ts';
import { frontReadsIntoBuffer, installFastFront, readHead } from './fast-front.ts';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Reads `count` responses (Content-Length framed) from one connection after writing `parts`. */
async function exchange(
  port: number,
  parts: string[],
  count: number,
  gapMs = 0,
): Promise<{ responses: RawResponse[]; closed: boolean }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let data: Buffer = Buffer.alloc(0);
  let closed = false;
  const responses: RawResponse[] = [];
  const done = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out with ${responses.length} responses`)), 10_000);
    const parse = () => {
      for (;;) {
        const taken = takeResponse(data);
        if (taken === null) return;
        responses.push(taken.response);
        data = taken.rest;
        if (responses.length === count) {
          clearTimeout(timer);
          resolve();
        }
      }
    };
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      parse();
    });
    socket.on('close', () => {
      closed = true;
      if (responses.length < count) {
        clearTimeout(timer);
        reject(new Error(`closed after ${responses.length} responses`));
      }
    });
  });
  for (const part of parts) {
    socket.write(part);
    if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
  }
  await done;
  socket.destroy();
  return { responses, closed };
}

/** The first whole response in `data` and the bytes after it, or null while it is incomplete. */
function takeResponse(data: Buffer): { response: RawResponse; rest: Buffer } | null {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const head = data.toString('latin1', 0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const c = line.indexOf(':');
    headers[line.slice(0, c).toLowerCase()] = line.slice(c + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  if (data.length < end + 4 + length) return null;
  return {
    response: {
      status: Number(head[0]?.split(' ')[1]),
      headers,
      body: data.toString('utf8', end + 4, end + 4 + length),
    },
    rest: data.subarray(end + 4 + length),
  };
}

/** The reference's header line [i, end) of `head`: its name (lower case) and trimmed value, or null when it is no header. */
function referenceHeader(head: string, i: number, end: number): { name: string; value: string } | null {
  const colon = head.indexOf(':', i);
  if (colon <= i || colon > end) return null;
  const name = head.slice(i, colon).toLowerCase();
  if (!/^[!#$%&'*+\-.^_`|~0-9a-z]+$/.test(name)) return null;
  let from = colon + 1;
  let to = end;
  while (from < to && (head[from] === ' ' || head[from] === '\t')) from++;
  while (to > from && (head[to - 1] === ' ' || head[to - 1] === '\t')) to--;
  const value = head.slice(from, to);
  if ([...value].some((ch) => (ch.charCodeAt(0) < 32 && ch !== '\t') || ch.charCodeAt(0) === 127))
    return null;
  return { name, value };
}

/** Whether the reference refuses the head for this header, given the Host and key seen before (updated). */
function referenceRefuses(
  name: string,
  value: string,
  seen: { host: boolean; key: string | undefined },
): boolean {
  if (name === 'host') {
    if (seen.host) return true;
    seen.host = true;
  } else if (name === 'x-api-key') {
    if (seen.key !== undefined) return true;
    seen.key = value;
  } else if (name === 'connection') {
    return value.toLowerCase() !== 'keep-alive';
  } else return ['content-length', 'transfer-encoding', 'expect', 'upgrade'].includes(name);
  return false;
}

/** readHead as it was before its name checks stopped allocating: toLowerCase and a regex. */
function readHeadReference(head: string): { url: string; key: string } | null {
  const lineEnd = head.indexOf('\r\n');
  if (lineEnd < 0) return null;
  if (!head.startsWith('GET /v1/ip/') || head.lastIndexOf(' HTTP/1.1', lineEnd) !== lineEnd - 9) return null;
  const url = head.slice(4, lineEnd - 9);
  if (!/^[\x21-\x7e]+$/.test(url)) return null;
  const seen: { host: boolean; key: string | undefined } = { host: false, key: undefined };
  let i = lineEnd + 2;
  while (i < head.length) {
    let end = head.indexOf('\r\n', i);
    if (end < 0) end = head.length;
    const field = referenceHeader(head, i, end);
    if (field === null || referenceRefuses(field.name, field.value, seen)) return null;
    i = end + 2;
  }
  return seen.host && seen.key !== undefined ? { url, key: seen.key } : null;
}

describe('readHead against its reference', () => {
  it('gives the same answer on random heads (names in any case, near misses, odd bytes)', () => {
    const names = fc.oneof(
      fc.constantFrom(
        'host',
        'x-api-key',
        'connection',
        'content-length',
        'transfer-encoding',
        'expect',
        'upgrade',
      ),
      fc.constantFrom(
        'hosT',
        'X-API-KEY',
        'X-Api-Key',
        'x-api_key',
        'hos',
        'hostt',
        'x\rapi-key',
        'Accept',
        'h st',
      ),
      fc.string({ maxLength: 18 }),
      fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b).toString('latin1')),
    );
    const mixCase = (name: string, flips: number) =>
      [...name].map((ch, i) => ((flips >> (i % 30)) & 1 ? ch.toUpperCase() : ch)).join('');
    const header = fc
      .tuple(
        names,
        fc.nat(),
        fc.constantFrom(':', ': ', ':\t', ' :'),
        fc.constantFrom('k', 'keep-alive', 'x', ' v ', 'Keep-Alive', 'a\u0001b', ''),
      )
      .map(([n, flips, sep, v]) => `${mixCase(n, flips)}${sep}${v}`);
    fc.assert(
      fc.property(
        fc.array(header, { maxLength: 6 }),
        fc.constantFrom('8.8.8.8', '::1', 'a b', '8.8.8.8\u0001', '1.2.3.4\u00e9', '\u007f'),
        (headers, ip) => {
          const head = [`GET /v1/ip/${ip} HTTP/1.1`, ...headers].join('\r\n');
          expect(readHead(head)).toEqual(readHeadReference(head));
        },
      ),
      { numRuns: 20_000 },
    );
  });
});

describe('readHead', () => {
  const ok = 'GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nX-API-Key: k\r\nAccept: */*';
  it('takes a plain keyed GET of the lookup route', () => {
    expect(readHead(ok)).toEqual({ url: '/v1/ip/8.8.8.8', key: 'k' });
    expect(readHead(`${ok}\r\nConnection: keep-alive`)).toEqual({ url: '/v1/ip/8.8.8.8', key: 'k' });
    expect(readHead('GET /v1/ip/::1 HTTP/1.1\r\nhost: x\r\nx-api-key:  k \t')).toEqual({
      url: '/v1/ip/::1',
      key: 'k',
    });
  });
  it.each([
    ['another method', ok.replace('GET', 'HEAD')],
    ['lower-case method', ok.replace('GET', 'get')],
    ['HTTP/1.0', ok.replace('HTTP/1.1', 'HTTP/1.0')],
    ['absolute form', ok.replace('/v1/ip/', 'http://x/v1/ip/')],
    ['another route', ok.replace('/v1/ip/', '/v1/asn/')],
    ['a space in the target', ok.replace('8.8.8.8', '8.8.8.8 x')],
    ['no Host', 'GET /v1/ip/8.8.8.8 HTTP/1.1\r\nX-API-Key: k'],
    ['two Hosts', `${ok}\r\nHost: y`],
    ['no key', 'GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x'],
    ['two keys', `${ok}\r\nX-API-Key: j`],
    ['a body length', `${ok}\r\nContent-Length: 0`],
    ['chunked', `${ok}\r\nTransfer-Encoding: chunked`],
    ['Expect', `${ok}\r\nExpect: 100-continue`],
    ['Upgrade', `${ok}\r\nUpgrade: websocket`],
    ['Connection: close', `${ok}\r\nConnection: close`],
    ['obs-fold', `${ok}\r\n folded`],
    ['space before the colon', `${ok}\r\nAccept : x`],
    ['no colon', `${ok}\r\nnonsense`],
    ['an empty name', `${ok}\r\n: x`],
    ['a control character', `${ok}\r\nX-Other: a\u0001b`],
    ['no headers at all', 'GET /v1/ip/8.8.8.8 HTTP/1.1'],
  ])('hands over %s', (_what, head) => {
    expect(readHead(head)).toBeNull();
  });
});

describe.skipIf(skipStore('sqlite')).each([
  ['into its shared buffer', true],
  ["by 'data' events", false],
])('socket front (sqlite), reading %s', (_mode, readIntoBuffer) => {
  let t: IntelTestApp;
  let port: number;
  let key: string;
  let starter: string;
  const get = (path: string, k = key, extra = '') =>
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${k}\r\n${extra}\r\n`;
  const fastCount = async (transport: 'socket' | 'request') => {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const line = text
      .split('\n')
      .find((l) => l.startsWith(`netrep_http_fast_path_total{transport="${transport}"}`));
    return Number(line?.split(' ').at(-1) ?? 0);
  };

  beforeAll(async () => {
    t = await createIntelTestApp('sqlite', {
      config: { quotaOverrides: 'starter=3' },
      ...(readIntoBuffer ? {} : { frontReadIntoBuffer: false }),
    });
    port = Number(new URL(await t.app.listen()).port);
    key = await t.key({ tier: 'enterprise', permissions: ['ip:read'] });
    starter = await t.key({ tier: 'starter', permissions: ['ip:read'] });
    // First uses authenticate through the store; the keys are then cached.
    await exchange(port, [get('/v1/ip/8.8.8.8'), get('/v1/ip/8.8.8.8', starter)], 2);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('pipelined lookups in one write: answered in order by the front', async () => {
    const before = await fastCount('socket');
    const { responses } = await exchange(
      port,
      [get('/v1/ip/8.8.8.8') + get('/v1/ip/1.0.0.1') + get('/v1/ip/10.0.0.1') + get('/v1/ip/223.255.255.1')],
      4,
    );
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 404]);
    expect(responses.map((r) => JSON.parse(r.body).data.ip ?? JSON.parse(r.body).data.code)).toEqual([
      '8.8.8.8',
      '1.0.0.1',
      '10.0.0.1',
      'NOT_FOUND',
    ]);
    for (const r of responses) {
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(r.headers.connection).toBe('keep-alive');
      expect(r.headers['keep-alive']).toBe('timeout=72');
      expect(Number.isNaN(Date.parse(r.headers.date ?? ''))).toBe(false);
      expect(JSON.parse(r.body).meta.request_id).toBe(r.headers['x-request-id']);
    }
    expect(await fastCount('socket')).toBe(before + 4);
  });

  it('a quota check in flight holds the requests behind it: order and counts kept', async () => {
    const { responses } = await exchange(
      port,
      [get('/v1/ip/8.8.8.8', starter) + get('/v1/ip/1.0.0.1', starter) + get('/v1/ip/8.8.8.8', starter)],
      3,
    );
    expect(responses.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(responses.map((r) => r.headers['x-ratelimit-remaining'])).toEqual(['1', '0', '0']);
    expect(JSON.parse(responses[1]?.body ?? '').data.ip).toBe('1.0.0.1');
    expect(Number(responses[2]?.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('the first request it does not take hands the connection to Node, bytes and order intact', async () => {
    const before = { socket: await fastCount('socket'), request: await fastCount('request') };
    const { responses } = await exchange(
      port,
      [
        get('/v1/ip/8.8.8.8') +
          'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' +
          get('/v1/ip/1.0.0.1') +
          get('/v1/ip/8.8.8.8', 'nrp_invalid'),
      ],
      4,
    );
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 401]);
    expect(JSON.parse(responses[2]?.body ?? '').data.ip).toBe('1.0.0.1');
    // One on the front, then Node: the third lookup took the request-event fast path.
    expect(await fastCount('socket')).toBe(before.socket + 1);
    expect(await fastCount('request')).toBe(before.request + 1);
  });

  it('a key not yet cached is authenticated once and answered by the front; an unknown one is the route 401', async () => {
    const fresh = await t.key({ tier: 'enterprise', permissions: ['ip:read'] });
    const before = await fastCount('socket');
    const unknown = `nrp_${'A'.repeat(40)}`;
    const { responses } = await exchange(
      port,
      [get('/v1/ip/8.8.8.8', fresh) + get('/v1/ip/8.8.8.8', fresh) + get('/v1/ip/8.8.8.8', unknown)],
      3,
    );
    expect(responses.map((r) => r.status)).toEqual([200, 200, 401]);
    expect(await fastCount('socket')).toBe(before + 2);
  });

  it('keys that change from request to request on one connection are each their own', async () => {
    // The connection keeps the last key's digest (KeyMemo): every change of key must be seen,
    // whether to another valid key (its own quota), to a malformed one or back.
    const other = await t.key({ tier: 'starter', permissions: ['ip:read'] });
    await exchange(port, [get('/v1/ip/8.8.8.8', other)], 1); // authenticated once, then cached
    const { responses } = await exchange(
      port,
      [
        get('/v1/ip/8.8.8.8') +
          get('/v1/ip/8.8.8.8', other) +
          get('/v1/ip/8.8.8.8') +
          get('/v1/ip/8.8.8.8', other) +
          get('/v1/ip/8.8.8.8', other) +
          get('/v1/ip/8.8.8.8', 'nrp_invalid'),
      ],
      6,
    );
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 429, 401]);
    // The starter key's quota of 3 counts only its own requests; the enterprise key has none.
    expect(responses.map((r) => r.headers['x-ratelimit-remaining'])).toEqual([
      undefined,
      '1',
      undefined,
      '0',
      '0',
      undefined,
    ]);
  });

  it('heads split across reads, HTTP/1.0, a GET with a body and a missing Host are Node answers', async () => {
    const split = get('/v1/ip/8.8.8.8');
    const parted = await exchange(port, [split.slice(0, 20), split.slice(20)], 1, 50);
    expect(parted.responses[0]?.status).toBe(200);
    const old = await exchange(
      port,
      [`GET /v1/ip/8.8.8.8 HTTP/1.0\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`],
      1,
    );
    expect(old.responses[0]?.status).toBe(200);
    const body = await exchange(
      port,
      [get('/v1/ip/8.8.8.8', key, 'Content-Length: 2\r\n').replace(/\r\n$/, '\r\n{}')],
      1,
    );
    expect(body.responses[0]?.status).toBe(200);
    const noHost = await exchange(port, [`GET /v1/ip/8.8.8.8 HTTP/1.1\r\nX-API-Key: ${key}\r\n\r\n`], 1);
    expect(noHost.responses[0]?.status).toBe(400);
    const smuggle = await exchange(
      port,
      [get('/v1/ip/8.8.8.8', key, 'Transfer-Encoding: chunked\r\nContent-Length: 5\r\n')],
      1,
    );
    expect(smuggle.responses[0]?.status).toBe(400);
  });

  it('hostile bytes after fast requests: never a 5xx, never a crash, the server keeps answering', async () => {
    const junk = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('latin1')),
      fc.constantFrom(
        'GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nX-API-Key: ',
        'GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
        'GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nX-API-Key: k\r\n\r\nabcGET / HTTP/1.1\r\n\r\n',
        `GET /v1/ip/${'1'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
        '\r\n\r\n\r\n',
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 3 }), junk, async (fastOnes, tail) => {
        const socket = net.connect(port, '127.0.0.1');
        let text = '';
        socket.on('data', (d: Buffer) => {
          text += d.toString('latin1');
        });
        socket.on('error', () => undefined);
        const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
        socket.write(get('/v1/ip/8.8.8.8').repeat(fastOnes) + tail);
        setTimeout(() => socket.destroy(), 400);
        await closed;
        const statuses = [...text.matchAll(/HTTP\/1\.[01] (\d{3})/g)].map((m) => Number(m[1]));
        expect(statuses.slice(0, fastOnes)).toEqual(Array(fastOnes).fill(200));
        for (const status of statuses) expect(status).toBeLessThan(500);
      }),
      { numRuns: 20 },
    );
    const after = await exchange(port, [get('/v1/ip/8.8.8.8')], 1);
    expect(after.responses[0]?.status).toBe(200);
  });

  it('close() ends idle keep-alive connections held by the front at once', async () => {
    const own = await createIntelTestApp('sqlite');
    const ownPort = Number(new URL(await own.app.listen()).port);
    const ownKey = await own.key({ permissions: ['ip:read'] });
    await exchange(ownPort, [get('/v1/ip/8.8.8.8', ownKey)], 1);
    const socket = net.connect(ownPort, '127.0.0.1');
    let answered = 0;
    socket.on('data', (d: Buffer) => {
      answered += d.toString().split('HTTP/1.1 200').length - 1;
    });
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(get('/v1/ip/8.8.8.8', ownKey));
    await expect.poll(() => answered).toBe(1);
    const started = Date.now();
    await own.close();
    await closed;
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe.each([
  ['into its shared buffer', true],
  ["by 'data' events", false],
])('socket front on a bare Node server, reading %s', (_mode, readIntoBuffer) => {
  it('this Node has the socket slots the shared-buffer mode needs', () => {
    // A Node without them would still serve ('data' events), only slower: this says so.
    expect(frontReadsIntoBuffer()).toBe(true);
  });

  it('a tunnel after CONNECT gets the bytes that follow, in order, once Node holds the socket', async () => {
    // With no lookup (no dataset) the front hands every connection over; Node's parser lets
    // go of the socket at CONNECT, and what the client sends next reaches the tunnel through
    // the front's read callback (the push path of the shared-buffer mode).
    const server = http.createServer((_req, res) => res.end('plain'));
    installFastFront(server, () => null, { keepAliveTimeoutMs: 5000, readIntoBuffer });
    server.on('connect', (_req, socket: net.Socket, head: Buffer) => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      let seen = head.toString('latin1');
      socket.on('data', (d: Buffer) => {
        seen += d.toString('latin1');
        if (seen.endsWith('END')) socket.end(`echo:${seen}`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const client = net.connect(port, '127.0.0.1');
      let got = '';
      client.on('data', (d) => {
        got += d.toString('latin1');
      });
      const closed = new Promise<void>((resolve) => client.on('close', () => resolve()));
      client.write('CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\n');
      await new Promise((r) => setTimeout(r, 50));
      client.write('first-');
      await new Promise((r) => setTimeout(r, 20));
      client.write('second-END');
      await closed;
      expect(got).toBe('HTTP/1.1 200 Connection Established\r\n\r\necho:first-second-END');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
