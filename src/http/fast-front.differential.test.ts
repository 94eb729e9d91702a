/**
 * The socket front against Node's own HTTP parser (issue 32 item 9): generated request heads,
 * near misses of the lookup request (two spaces, bare LF or CR, doubled or framing headers, odd
 * versions, case, whitespace around names and values), each sent to a plain Node HTTP server
 * with a second request pipelined behind it. Every head the front would answer must be one Node
 * parses as the same request: GET, HTTP/1.1, the same target, one Host, the same X-API-Key, no
 * body framing, and ending where the front thinks it ends (Node then reads the second request).
 * Heads the front declines go to that same parser, so they get Node's answer by construction.
 */
import http from 'node:http';
import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntelTestApp, type IntelTestApp } from '../../test/helpers/intel-app.ts';
import { skipStore } from '../../test/helpers/stores.ts';
import { clientErrorOf } from './client-errors.ts';
import { readHead } from './fast-front.ts';

interface Seen {
  method: string;
  url: string;
  version: string;
  rawHeaders: string[];
}

interface NodeView {
  requests: Seen[];
  error: string | null;
}

const SECOND = 'GET /second HTTP/1.1\r\nHost: s\r\n\r\n';

/** What the front does with these bytes: null (hands them to Node) or the request it answers. */
function frontTakes(bytes: Buffer): { url: string; key: string } | null {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0 || end > 16 * 1024) return null;
  return readHead(bytes.toString('latin1', 0, end));
}

/**
 * Node read a head the front takes (`front`) as the same request: the same GET line, one Host,
 * the same key, no framing header, keep-alive at most, and its end where the front's is.
 */
function expectSameRequest(view: NodeView, front: { url: string; key: string }, where: string): void {
  expect(view.error, where).toBeNull();
  const [first, second] = view.requests;
  expect(first, where).toBeDefined();
  expect({ method: first?.method, url: first?.url, version: first?.version }, where).toEqual({
    method: 'GET',
    url: front.url,
    version: '1.1',
  });
  const fields = (name: string) =>
    (first?.rawHeaders ?? []).flatMap((v, k, all) =>
      k % 2 === 0 && v.toLowerCase() === name ? [all[k + 1] as string] : [],
    );
  expect(fields('host'), where).toHaveLength(1);
  expect(fields('x-api-key'), where).toEqual([front.key]);
  for (const framing of ['content-length', 'transfer-encoding', 'expect', 'upgrade'])
    expect(fields(framing), where).toEqual([]);
  for (const value of fields('connection')) expect(value.toLowerCase(), where).toBe('keep-alive');
  // Node's head ended where the front's does: the pipelined request is the next one.
  expect(second?.url, where).toBe('/second');
}

/** `usual` most of the time (weight 12), else one of the near misses. */
const mostly = <T>(usual: T, ...variants: T[]) =>
  fc.oneof(
    { arbitrary: fc.constant(usual), weight: 12 },
    { arbitrary: fc.constantFrom(...variants), weight: 1 },
  );
const eol = mostly('\r\n', '\n', '\r', '\r\r\n', '\n\r');
const sp = mostly(' ', '  ', '\t', '');
const header = fc.tuple(
  fc.constantFrom(
    'Host',
    'host',
    'X-API-Key',
    'x-api-key',
    'X-Api-Key',
    'Content-Length',
    'content-length',
    'Transfer-Encoding',
    'Connection',
    'Expect',
    'Upgrade',
    'Accept',
    'User-Agent',
    'X-API-Key ',
    ' Host',
    'x-api_key',
    'X-API-Key\t',
    'Hos t',
    '',
  ),
  fc.constantFrom(':', ': ', ':\t', ': \t', ' :', '::', ':  '),
  fc.constantFrom(
    'k',
    'nrp_abc',
    ' k ',
    '',
    '0',
    '5',
    'keep-alive',
    'Keep-Alive',
    'close',
    'chunked',
    '100-continue',
    'a\tb',
    'a b',
    'a\u0001b',
    'a\u007fb',
    '\u00e9t\u00e9',
    'k\t',
    'h2c',
  ),
  eol,
);
const head = fc
  .record({
    method: mostly('GET', 'get', 'HEAD', 'POST', 'GE'),
    sp1: sp,
    target: mostly(
      '/v1/ip/8.8.8.8',
      '/v1/ip/2001:db8::1',
      '/v1/ip/::ffff:1.2.3.4',
      '/v1/ip/1.2.3.4?x=1',
      '/v1/ip/%38.8.8.8',
      '/v1/IP/8.8.8.8',
      '/v1/ip/8.8.8.8#f',
      '/v1/ip/8.8.8.8\u0001',
      'http://h/v1/ip/8.8.8.8',
      '/v1/ip/',
      '*',
    ),
    sp2: sp,
    version: mostly('HTTP/1.1', 'HTTP/1.0', 'HTTP/1.2', 'http/1.1', 'HTTP/2.0', 'HTTP/1.1 ', 'HTTP/1.1\t'),
    lineEnd: eol,
    // The two the front needs, usually present and well formed, so many heads are near misses.
    host: fc.option(fc.tuple(fc.constant('Host'), fc.constant(': '), fc.constant('example.test'), eol), {
      freq: 6,
    }),
    key: fc.option(fc.tuple(fc.constant('X-API-Key'), fc.constant(': '), fc.constant('nrp_key'), eol), {
      freq: 6,
    }),
    others: fc.array(header, { maxLength: 3 }),
    order: fc.nat(),
    last: mostly('\r\n', '\n', '\r'),
  })
  .map((h) => {
    const lines: [string, string, string, string][] = [...h.others];
    if (h.host) lines.splice(h.order % (lines.length + 1), 0, h.host);
    if (h.key) lines.splice((h.order >> 3) % (lines.length + 1), 0, h.key);
    let text = `${h.method}${h.sp1}${h.target}${h.sp2}${h.version}${h.lineEnd}`;
    for (const [name, sep, value, end] of lines) text += `${name}${sep}${value}${end}`;
    return Buffer.from(text + h.last, 'latin1');
  });

describe('the socket front parses what Node parses', () => {
  let server: http.Server;
  let port = 0;
  const views = new Map<number, NodeView>();
  const closed = new Map<number, () => void>();

  beforeAll(async () => {
    // Node's parser with the server's settings (server.ts: Host is checked after parsing).
    server = http.createServer({ requireHostHeader: false }, (req, res) => {
      views.get(req.socket.remotePort ?? 0)?.requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        version: req.httpVersion,
        rawHeaders: req.rawHeaders,
      });
      res.end();
    });
    server.on('clientError', (err: NodeJS.ErrnoException, socket: net.Socket) => {
      const view = views.get(socket.remotePort ?? 0);
      if (view) view.error = err.code ?? 'error';
      socket.destroy();
    });
    server.on('connection', (socket) => {
      const remote = socket.remotePort ?? 0;
      socket.on('close', () => closed.get(remote)?.());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("names the fault Node's parser found in the heads the front hands it", async () => {
    const answers: string[] = [];
    const record = (err: NodeJS.ErrnoException) => {
      answers.push(clientErrorOf(err)?.message ?? '');
    };
    server.prependListener('clientError', record);
    const ask = async (text: string) => {
      answers.length = 0;
      await nodeSees(Buffer.from(text, 'latin1'));
      return answers[0];
    };
    const prefix = 'the request is not valid HTTP/1.1: ';
    expect(await ask('GET /v1/ip/8.8.8.8 HTTP/1.1\nHost: x\nX-API-Key: k\n\n')).toBe(
      `${prefix}a line is not ended by CRLF`,
    );
    expect(await ask('GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\nX-API-Key: k\r\n\r\n')).toBe(
      `${prefix}a line is not ended by CRLF`,
    );
    expect(await ask('POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n{')).toBe(
      `${prefix}more than one Content-Length`,
    );
    expect(
      await ask('POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n{'),
    ).toBe(`${prefix}Content-Length together with Transfer-Encoding`);
    server.removeListener('clientError', record);
  });

  /** Sends `bytes` then SECOND on one connection; what Node's server saw once it closed it. */
  async function nodeSees(bytes: Buffer): Promise<NodeView> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const remote = socket.localPort ?? 0;
    const view: NodeView = { requests: [], error: null };
    views.set(remote, view);
    const done = new Promise<void>((resolve) => closed.set(remote, resolve));
    socket.on('error', () => undefined);
    socket.resume();
    socket.end(Buffer.concat([bytes, Buffer.from(SECOND, 'latin1')]));
    await done;
    views.delete(remote);
    closed.delete(remote);
    return view;
  }

  it('every head the front answers is the same request to Node, framed the same', async () => {
    const seed = Date.now() ^ (Math.random() * 0x7fffffff);
    const heads = fc.sample(head, { numRuns: 3000, seed });
    let taken = 0;
    let nodeRefused = 0;
    for (let i = 0; i < heads.length; i += 50) {
      const batch = heads.slice(i, i + 50);
      const seen = await Promise.all(batch.map((h) => nodeSees(h)));
      batch.forEach((bytes, j) => {
        const view = seen[j] as NodeView;
        if (view.error !== null) nodeRefused++;
        const front = frontTakes(bytes);
        if (front === null) return;
        taken++;
        const where = `seed ${seed}: ${JSON.stringify(bytes.toString('latin1'))}`;
        expectSameRequest(view, front, where);
      });
    }
    // Not vacuous: many heads are the front's, and many near misses are refused by Node.
    expect(taken).toBeGreaterThan(150);
    expect(nodeRefused).toBeGreaterThan(300);
  }, 120_000);
});

describe.skipIf(skipStore('sqlite'))(
  'the same answers with the front and without it (NETREP_HTTP_FRONT)',
  () => {
    const apps: IntelTestApp[] = [];
    const ports: Record<'on' | 'off', number> = { on: 0, off: 0 };
    const keys: Record<'on' | 'off', string> = { on: '', off: '' };
    beforeAll(async () => {
      for (const setting of ['on', 'off'] as const) {
        const t = await createIntelTestApp('sqlite', { config: { httpFront: setting } });
        apps.push(t);
        ports[setting] = Number(new URL(await t.app.listen()).port);
        keys[setting] = await t.key({ tier: 'enterprise', permissions: ['ip:read'] });
      }
    });
    afterAll(async () => {
      for (const t of apps) await t.close();
    });

    /** Status and error code of the answer to one raw request on a fresh connection. */
    async function answer(port: number, text: string): Promise<string> {
      const socket = net.connect(port, '127.0.0.1');
      let got = '';
      socket.on('data', (d: Buffer) => {
        got += d.toString('latin1');
        if (/\r\n\r\n[\s\S]*\}$/.test(got)) socket.destroy();
      });
      socket.on('error', () => undefined);
      socket.write(text);
      await new Promise((resolve) => socket.on('close', resolve));
      const status = /^HTTP\/1\.1 (\d{3})/.exec(got)?.[1] ?? 'none';
      const code = /"code":"([A-Z_]+)"/.exec(got)?.[1] ?? '';
      return `${status} ${code}`.trim();
    }

    const lookup = (k: string) => `GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${k}\r\n\r\n`;

    it("two spaces, bare LF, a doubled Content-Length: the front's answer is Node's", async () => {
      const cases = (k: string) => [
        lookup(k),
        `GET  /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${k}\r\n\r\n`,
        `GET /v1/ip/8.8.8.8  HTTP/1.1\r\nHost: x\r\nX-API-Key: ${k}\r\n\r\n`,
        `GET /v1/ip/8.8.8.8 HTTP/1.1\nHost: x\nX-API-Key: ${k}\n\n`,
        `GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\nX-API-Key: ${k}\r\n\r\n`,
        `GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${k}\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n`,
        `GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${k}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
        `GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nHost: y\r\nX-API-Key: ${k}\r\n\r\n`,
        `GET /v1/ip/8.8.8.8\u0001 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${k}\r\n\r\n`,
      ];
      const on = cases(keys.on);
      const off = cases(keys.off);
      for (let i = 0; i < on.length; i++) {
        const viaFront = await answer(ports.on, on[i] as string);
        expect(viaFront, JSON.stringify(on[i])).toBe(await answer(ports.off, off[i] as string));
      }
      expect(await answer(ports.on, lookup(keys.on))).toBe('200');
    });

    it('off: no answer comes from the socket front; on: lookups do', async () => {
      expect(await answer(ports.off, lookup(keys.off))).toBe('200');
      expect(await answer(ports.on, lookup(keys.on))).toBe('200');
      const socketAnswers = async (port: number) => {
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        return Number(/^netrep_http_fast_path_total\{transport="socket"\} (\d+)$/m.exec(text)?.[1] ?? 0);
      };
      expect(await socketAnswers(ports.off)).toBe(0);
      expect(await socketAnswers(ports.on)).toBeGreaterThan(0);
    });
  },
);
