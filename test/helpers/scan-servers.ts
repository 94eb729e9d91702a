/**
 * Real servers on 127.0.0.1 for the service scan's tests (issue #34): certificates made at test
 * time with openssl (a test CA, a leaf naming an organisation, a self-signed one, an expired one)
 * and raw TCP/TLS servers whose behaviour a test scripts, recording what they received.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';

/**
 * NETREP_SCAN_EXCLUDE for tests and benchmarks: everything but 127.0.0.0/8, so a scan under test
 * can reach nothing off this machine whatever address it is given.
 */
export const ALL_BUT_LOOPBACK: readonly string[] = [
  '0.0.0.0/2',
  '64.0.0.0/3',
  '96.0.0.0/4',
  '112.0.0.0/5',
  '120.0.0.0/6',
  '124.0.0.0/7',
  '126.0.0.0/8',
  '128.0.0.0/1',
  '::/0',
];

export interface TestCerts {
  dir: string;
  /** The test CA's certificate (PEM), trusted by the scanner under test where a test says so. */
  ca: string;
  org: { key: string; cert: string };
  selfSigned: { key: string; cert: string };
  expired: { key: string; cert: string };
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

export function makeCerts(): TestCerts {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netrep-scan-certs-'));
  openssl(dir, [
    'req',
    '-x509',
    ...EC,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '30',
    '-subj',
    '/O=netrep test CA/CN=netrep test CA',
  ]);
  fs.writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=DNS:www.example.test,DNS:example.test\n');
  openssl(dir, [
    'req',
    ...EC,
    '-keyout',
    'org.key',
    '-out',
    'org.csr',
    '-subj',
    '/O=Example Hosting Ltd/CN=www.example.test',
  ]);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    'org.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'org.pem',
    '-days',
    '30',
    '-extfile',
    'san.ext',
  ]);
  openssl(dir, [
    'req',
    '-x509',
    ...EC,
    '-keyout',
    'self.key',
    '-out',
    'self.pem',
    '-days',
    '30',
    '-subj',
    '/O=Self Signed Org/CN=self.test',
  ]);
  // `openssl ca` is the one 3.0 command that sets both dates: a certificate that ended in 2020.
  fs.writeFileSync(path.join(dir, 'index.txt'), '');
  fs.writeFileSync(path.join(dir, 'serial'), '1000\n');
  fs.writeFileSync(
    path.join(dir, 'ca.cnf'),
    '[ca]\ndefault_ca=d\n[d]\ndatabase=index.txt\nserial=serial\nnew_certs_dir=.\ndefault_md=sha256\npolicy=p\nunique_subject=no\npreserve=yes\n[p]\nO=optional\nCN=optional\n',
  );
  openssl(dir, [
    'req',
    ...EC,
    '-keyout',
    'expired.key',
    '-out',
    'expired.csr',
    '-subj',
    '/O=Expired Org/CN=expired.test',
  ]);
  openssl(dir, [
    'ca',
    '-batch',
    '-config',
    'ca.cnf',
    '-cert',
    'ca.pem',
    '-keyfile',
    'ca.key',
    '-in',
    'expired.csr',
    '-out',
    'expired.pem',
    '-startdate',
    '20200101000000Z',
    '-enddate',
    '20200201000000Z',
    '-notext',
  ]);
  const read = (f: string) => fs.readFileSync(path.join(dir, f), 'utf8');
  return {
    dir,
    ca: read('ca.pem'),
    org: { key: read('org.key'), cert: read('org.pem') },
    selfSigned: { key: read('self.key'), cert: read('self.pem') },
    expired: { key: read('expired.key'), cert: read('expired.pem') },
  };
}

export interface ScriptedServer {
  port: number;
  /** Connections accepted. */
  connections: number;
  /** What each connection sent, in order. */
  received: string[];
  /** Bytes written to clients before their socket closed. */
  written: number;
  close(): Promise<void>;
}

/**
 * A server on 127.0.0.1 (TLS when `tlsOptions` is given) that hands each connection to `onRequest`
 * once the client's request head has arrived (`onConnect` at once instead, for banners).
 */
export async function scriptedServer(script: {
  tlsOptions?: tls.TlsOptions;
  onConnect?: (socket: net.Socket) => void;
  onRequest?: (socket: net.Socket, head: string) => void;
}): Promise<ScriptedServer> {
  const sockets = new Set<net.Socket>();
  const state = { connections: 0, received: [] as string[], written: 0 };
  const handle = (socket: net.Socket) => {
    sockets.add(socket);
    state.connections++;
    const index = state.received.push('') - 1;
    socket.on('error', () => undefined);
    socket.on('close', () => {
      state.written += socket.bytesWritten;
      sockets.delete(socket);
    });
    script.onConnect?.(socket);
    let head = '';
    socket.on('data', (chunk: Buffer) => {
      const before = head.includes('\r\n\r\n');
      head += chunk.toString('latin1');
      state.received[index] = head;
      if (!before && head.includes('\r\n\r\n')) script.onRequest?.(socket, head);
    });
  };
  const server = script.tlsOptions ? tls.createServer(script.tlsOptions, handle) : net.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    get connections() {
      return state.connections;
    },
    get received() {
      return state.received;
    },
    get written() {
      return state.written + [...sockets].reduce((n, s) => n + s.bytesWritten, 0);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Writes an HTTP/1.1 response with these headers and body, then closes. */
export function respond(
  socket: net.Socket,
  status: string,
  headers: Record<string, string>,
  body: string,
): void {
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
  socket.end(
    `HTTP/1.1 ${status}\r\n${lines.join('\r\n')}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** A port on 127.0.0.1 nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
