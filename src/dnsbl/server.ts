import dgram from 'node:dgram';
import net from 'node:net';
import { type Clock, systemClock } from '../core/clock.ts';
import { createConnectionCap } from '../core/connection-cap.ts';
import { type ListenAddress, parseHostPort } from '../core/listen.ts';
import { bindBatchedUdp, serveBatchedUdp } from './batch-udp.ts';
import { createResponder, type Responder } from './responder.ts';
import type { DnsblLogger, ListingIndex, SoaSettings } from './types.ts';
import { createZoneContext } from './zone-context.ts';

export interface DnsblTcpLimits {
  /**
   * Close a connection that sends no query for this long (RFC 7766 §6.2.3); frames that get no
   * answer (empty, too short to be a DNS message, responses) do not keep it open.
   */
  idleTimeoutMs: number;
  /** A started frame must be complete within this time (slowloris). */
  frameTimeoutMs: number;
  maxConnections: number;
  /** Open connections from one client address (an IPv6 client: its /64); 0: no cap. */
  maxConnectionsPerClient: number;
  /** Close a client that does not read its answers once this much output is queued. */
  maxQueuedBytes: number;
}

export interface DnsblServerOptions {
  zone: string;
  /** `host:port` or `[v6]:port`; port 0 picks a free port (the same one for UDP and TCP). */
  listen: string;
  index: ListingIndex;
  /** Lookup URL served in TXT answers, for a normalized IP. */
  lookupUrl: (ip: string) => string;
  logger?: DnsblLogger;
  soa?: Partial<SoaSettings>;
  /** Apex NS names; default `localhost`. */
  ns?: string[];
  /** TTL of positive answers, seconds (default 60). */
  ttl?: number;
  clock?: Clock;
  tcp?: Partial<DnsblTcpLimits>;
  /** Use the hand-written answer path for common queries (default true). */
  fastPath?: boolean;
  /**
   * A bound UDP socket (`createUdpSocket`) to answer on instead of binding one: a DNS thread
   * reading the socket of another (shared-udp.ts). It is on `listen`'s port; closed with the server.
   */
  udpSocket?: dgram.Socket;
  /**
   * Answer UDP through the @netrep/dns-udp addon (batch-udp.ts: one system call per batch of
   * queries) instead of node:dgram; the caller checked that it is built. Default false.
   */
  batchedUdp?: boolean;
  /**
   * With `batchedUdp`: bind with SO_REUSEPORT, so other DNS threads bind the same port with
   * sockets of their own. The TCP port is bound exclusively, so a second instance on the port
   * still fails its start with EADDRINUSE.
   */
  reusePort?: boolean;
  /** Serve TCP on the UDP port too (default true; the extra DNS threads serve UDP only). */
  serveTcp?: boolean;
}

export interface DnsblServer {
  udpPort: number;
  tcpPort: number;
  address: string;
  /** Queries answered SERVFAIL because answering them failed (logged), since start. */
  answerErrors(): number;
  close(): Promise<void>;
}

const DEFAULT_TCP: DnsblTcpLimits = {
  idleTimeoutMs: 10_000,
  frameTimeoutMs: 5_000,
  maxConnections: 512,
  maxConnectionsPerClient: 64,
  maxQueuedBytes: 1 << 20,
};

/** NETREP_DNSBL_LISTEN: an IP host and a port, both required (UDP and TCP bind the same pair). */
export function parseListen(listen: string): ListenAddress {
  return parseHostPort(listen, { ipHost: true, what: 'DNSBL listen address' });
}

/** Starts the authoritative DNSBL server on UDP and TCP. */
export async function startDnsblServer(options: DnsblServerOptions): Promise<DnsblServer> {
  const { host, port } = parseListen(options.listen);
  const ctx = createZoneContext({
    zone: options.zone,
    index: options.index,
    lookupUrl: options.lookupUrl,
    ttl: options.ttl,
    soa: options.soa,
    ns: options.ns,
    now: (options.clock ?? systemClock)(),
  });
  const responder = createResponder(ctx, { fastPath: options.fastPath, logger: options.logger });
  const limits = { ...DEFAULT_TCP, ...options.tcp };
  // With port 0 the kernel picks the UDP port; TCP may find it taken, so try a few times.
  const adopted = options.udpSocket !== undefined;
  for (let attempt = 0; ; attempt++) {
    const udp = await openUdp(options, host, port, responder);
    try {
      const tcp =
        options.serveTcp === false ? null : await bindTcp(host, udp.port, responder, limits, options.logger);
      return {
        udpPort: udp.port,
        tcpPort: udp.port,
        address: host,
        answerErrors: () => responder.answerErrors(),
        close: () => Promise.all([udp.close(), tcp?.close()]).then(() => undefined),
      };
    } catch (err) {
      await udp.close();
      if (adopted || port !== 0 || attempt >= 10) throw err;
    }
  }
}

/** The UDP side, whichever way it is read. */
interface UdpEndpoint {
  port: number;
  close(): Promise<void>;
}

async function openUdp(
  options: DnsblServerOptions,
  host: string,
  port: number,
  responder: Responder,
): Promise<UdpEndpoint> {
  if (options.batchedUdp && !options.udpSocket) {
    return serveBatchedUdp(bindBatchedUdp(host, port, options.reusePort), responder);
  }
  const socket = options.udpSocket
    ? serveUdp(options.udpSocket, responder, options.logger)
    : await bindUdp(host, port, responder, options.logger);
  return { port: socket.address().port, close: () => closeUdp(socket) };
}

/**
 * A socket for answers: they go to the address a query came from, always an IP, so no resolver
 * call and no nextTick per send (dgram's default lookup defers even for an IP).
 */
export function createUdpSocket(host: string): dgram.Socket {
  return dgram.createSocket({ type: net.isIPv6(host) ? 'udp6' : 'udp4', lookup: ipAsIs });
}

/** dgram calls it with the socket's family (4 for udp4, 6 for udp6). */
function ipAsIs(
  address: string,
  family: unknown,
  callback: (err: NodeJS.ErrnoException | null, address: string, family: number) => void,
): void {
  callback(null, address, family === 6 ? 6 : 4);
}

function bindUdp(
  host: string,
  port: number,
  responder: Responder,
  logger?: DnsblLogger,
): Promise<dgram.Socket> {
  const socket = createUdpSocket(host);
  answerOn(socket, responder);
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, host, () => {
      socket.off('error', reject);
      // Send failures (an unreachable client) are the client's problem, not a reason to stop.
      socket.on('error', (err) => logger?.warn({ err }, 'dnsbl: UDP socket error'));
      resolve(socket);
    });
  });
}

function answerOn(socket: dgram.Socket, responder: Responder): void {
  socket.on('message', (msg, rinfo) => {
    const out = responder.respond(msg, false);
    if (out) socket.send(out, rinfo.port, rinfo.address);
  });
}

/** A socket bound by the caller (`createUdpSocket`, then shared-udp.ts). */
function serveUdp(socket: dgram.Socket, responder: Responder, logger?: DnsblLogger): dgram.Socket {
  answerOn(socket, responder);
  socket.on('error', (err) => logger?.warn({ err }, 'dnsbl: UDP socket error'));
  return socket;
}

function closeUdp(socket: dgram.Socket): Promise<void> {
  return new Promise((resolve) => {
    try {
      socket.close(() => resolve());
    } catch {
      resolve();
    }
  });
}

/** RFC 7766 / RFC 1035 §4.2.2: each message prefixed by a two-byte length, many per connection. */
function serveConnection(
  socket: net.Socket,
  responder: Responder,
  limits: DnsblTcpLimits,
  logger?: DnsblLogger,
): void {
  let pending: Buffer = Buffer.alloc(0);
  let frameTimer: NodeJS.Timeout | null = null;
  const clearFrameTimer = () => {
    if (frameTimer) clearTimeout(frameTimer);
    frameTimer = null;
  };
  socket.setNoDelay(true);
  // Not socket.setTimeout: any byte would reset that, and a client sending empty frames would
  // hold the connection forever. Only a frame that gets an answer restarts this one.
  const idleTimer = setTimeout(() => socket.destroy(), limits.idleTimeoutMs);
  socket.on('error', (err) => logger?.warn({ err }, 'dnsbl: TCP connection error'));
  socket.on('close', () => {
    clearFrameTimer();
    clearTimeout(idleTimer);
  });
  /** Answers one message; false once the socket was closed for not reading its answers. */
  const answer = (message: Buffer): boolean => {
    clearFrameTimer();
    const out = responder.respond(message, true);
    if (!out) return true;
    idleTimer.refresh();
    socket.write(lengthPrefixed(out));
    if (socket.writableLength <= limits.maxQueuedBytes) return true;
    socket.destroy();
    return false;
  };
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 2) {
      const size = pending.readUInt16BE(0);
      if (pending.length < 2 + size) break;
      const message = pending.subarray(2, 2 + size);
      pending = pending.subarray(2 + size);
      if (!answer(message)) return;
    }
    if (pending.length > 0 && !frameTimer) {
      frameTimer = setTimeout(() => socket.destroy(), limits.frameTimeoutMs);
    }
  });
}

/** A TCP frame: the message after its two-byte length. */
function lengthPrefixed(out: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(2 + out.length);
  frame.writeUInt16BE(out.length, 0);
  out.copy(frame, 2);
  return frame;
}

function bindTcp(
  host: string,
  port: number,
  responder: Responder,
  limits: DnsblTcpLimits,
  logger?: DnsblLogger,
): Promise<{ close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const perClient = createConnectionCap({ max: limits.maxConnectionsPerClient });
  const server = net.createServer((socket) => {
    const release = perClient.admit(socket.remoteAddress);
    if (release === null) {
      // One client over its share: closed unread, so it cannot fill the global cap alone.
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      release();
    });
    serveConnection(socket, responder, limits, logger);
  });
  // Beyond the cap the kernel-accepted connection is closed at once by Node.
  server.maxConnections = limits.maxConnections;
  server.on('error', (err) => logger?.warn({ err }, 'dnsbl: TCP server error'));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, exclusive: true }, () => {
      server.off('error', reject);
      resolve({
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
