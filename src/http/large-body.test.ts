/**
 * A body far over the limit (issue 32 item 9): the client that sends 10 MB to a route that takes
 * at most 64 KiB reads the 413 PAYLOAD_TOO_LARGE envelope, on a fresh connection and on one the
 * socket front handed to Node after a lookup; the upload is read to its end (declared-body.ts),
 * not cut with EPIPE or a reset, and the connection then serves the next request.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntelTestApp, type IntelTestApp } from '../../test/helpers/intel-app.ts';
import { skipStore } from '../../test/helpers/stores.ts';
import { DRAIN_LIMIT } from './declared-body.ts';

describe.skipIf(skipStore('sqlite'))('a 10 MB body', () => {
  let t: IntelTestApp;
  let port = 0;
  beforeAll(async () => {
    t = await createIntelTestApp('sqlite');
    port = Number(new URL(await t.app.listen()).port);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** POSTs 10 MB with http.request (which reports EPIPE/ECONNRESET as an error). */
  const post = (path: string, declared: boolean) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(declared ? { 'content-length': String(10 * 1024 * 1024) } : {}),
          },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => {
            body += d;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const more = () => {
        while (sent < 10 * 1024 * 1024) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', more);
        }
        req.end();
      };
      more();
    });

  it.each([
    ['with Content-Length', true],
    ['chunked', false],
  ])(
    '%s: gets the 413 envelope, read before the close',
    async (_how, declared) => {
      for (let i = 0; i < 3; i++) {
        const answer = await post('/v1/public/tools/header-analyzer', declared);
        expect(answer.status).toBe(413);
        expect(JSON.parse(answer.body).data.code).toBe('PAYLOAD_TOO_LARGE');
      }
    },
    60_000,
  );

  /** The same over a raw socket, the whole upload in one write, read until the close. */
  const raw = (prefix: string) =>
    new Promise<{ text: string; error: string | null }>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      let text = '';
      let error: string | null = null;
      socket.on('data', (d: Buffer) => {
        text += d.toString('latin1');
      });
      socket.on('error', (err: NodeJS.ErrnoException) => {
        error = err.code ?? err.message;
      });
      socket.on('close', () => resolve({ text, error }));
      const size = 10 * 1024 * 1024;
      socket.write(
        `${prefix}POST /v1/public/tools/header-analyzer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
      );
      socket.end(Buffer.alloc(size, 0x20));
    });

  it('over a raw socket, first on the connection or after a lookup the front answered', async () => {
    const key = await t.key({ tier: 'enterprise', permissions: ['ip:read'] });
    for (const prefix of ['', `GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`]) {
      for (let i = 0; i < 3; i++) {
        const { text, error } = await raw(prefix);
        expect(text, `error ${error}`).toMatch(/HTTP\/1\.1 413 [\s\S]*"code":"PAYLOAD_TOO_LARGE"/);
        // The whole upload was taken: no EPIPE or reset on the client's side.
        expect(error).toBeNull();
      }
    }
  }, 60_000);

  it('the connection stays open after the 413 and answers the next request', async () => {
    const answers = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      let text = '';
      socket.on('data', (d: Buffer) => {
        text += d.toString('latin1');
        if (text.includes('"status":"ok"')) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on('error', reject);
      const size = 3 * 1024 * 1024;
      socket.write(
        `POST /v1/public/tools/header-analyzer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
      );
      socket.write(Buffer.alloc(size, 0x20));
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    });
    expect(answers).toMatch(/^HTTP\/1\.1 413 [\s\S]*HTTP\/1\.1 200 /);
    expect(answers.split('\r\n\r\n')[0]).not.toMatch(/connection: close/i);
  });

  it(`a body declared over ${DRAIN_LIMIT} bytes: Fastify's 413 at once, and the connection closes`, async () => {
    const text = await new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      let got = '';
      socket.on('data', (d: Buffer) => {
        got += d.toString('latin1');
      });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(got));
      socket.write(
        `POST /v1/public/tools/header-analyzer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${DRAIN_LIMIT + 1}\r\n\r\n`,
      );
    });
    expect(text).toMatch(/^HTTP\/1\.1 413 [\s\S]*connection: close/i);
  });
});
