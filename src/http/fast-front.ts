/**
 * The socket front of the keyed lookup: it reads a new connection's requests itself while they
 * are plain `GET /v1/ip/{ip}` requests that fast-lookup.ts takes, writing each answer as one
 * socket write, and hands the connection to Node's HTTP server (with every byte it has not
 * answered) at the first request that is anything else. Node's own per-request machinery
 * (request and response streams, events, header objects) costs more than the lookup; this
 * is what lets the lookup route outrun a bare Fastify server (docs/benchmarks.md).
 *
 * It answers only what it can read without doubt: a whole request head in what has arrived,
 * the request line exactly `GET /v1/ip/<address> HTTP/1.1` (single spaces, a target of printable
 * ASCII), CRLF line ends, header names that are tokens, one
 * Host, one X-API-Key, no body framing (Content-Length, Transfer-Encoding), no Expect, Upgrade
 * or `Connection` other than keep-alive. Anything else, a head split across reads included,
 * goes to Node, which applies its own limits, timeouts and errors from there on (two spaces,
 * a bare LF, a doubled Content-Length get Node's answer). fast-front.differential.test.ts checks
 * over generated heads that every head the front answers is the same request to Node's parser,
 * framed the same. Responses are
 * in request order (a quota check in flight holds the requests behind it), and a closing
 * server ends the idle connections this front holds.
 *
 * Reads land in one buffer shared by all connections (READ_SLOTS), handed to the front by a
 * callback rather than as 'data' events, which spares each request a Buffer, a stream push and a
 * deferred read-more; what a connection keeps past its read is copied out. Answers whose bytes are
 * all ASCII are written as Latin-1 (a copy instead of a UTF-8 encoding pass), and a connection
 * keeps its last key's digest (fast-lookup.ts KeyMemo). Together these took the front's own work
 * per request (instructions counted by callgrind) from about 59,000 to 38,000.
 */
import { type Server, STATUS_CODES } from 'node:http';
import { Socket } from 'node:net';
import { type FastLookup, type FastReply, keyMemo } from './fast-lookup.ts';

/**
 * The Node release lines the front is tested on: .ci/run runs its suites under each line
 * package.json's `engines` names (test/engines.test.ts holds the two lists equal). The front
 * reads the socket through Node internals (the read slots below, `_handle.useUserBuffer`, the
 * server's `connection` listeners), whose change would show as hangs rather than errors, so on
 * any other line NETREP_HTTP_FRONT=auto leaves every connection to Node's own HTTP path.
 */
export const FRONT_TESTED_NODE_LINES: readonly number[] = [20, 22, 24, 25, 26];

/** Whether the server installs the front: NETREP_HTTP_FRONT (`auto`, `on`, `off`) on this Node. */
export function frontEnabled(setting: string, nodeVersion: string = process.versions.node): boolean {
  if (setting === 'on') return true;
  if (setting === 'off') return false;
  if (setting !== 'auto') throw new Error(`NETREP_HTTP_FRONT must be auto, on or off (got "${setting}")`);
  return FRONT_TESTED_NODE_LINES.includes(Number(nodeVersion.split('.')[0]));
}

/**
 * net.Socket's slots for reading into a buffer of the caller's (its documented `onread` option:
 * the data goes to a callback, without a Buffer, a stream push, a 'data' event and a deferred
 * read-more per read), which a server's accepted sockets have no way to be given. Found by name
 * on a socket of this Node; null where they are not there, and the front then reads 'data'
 * events. net.Socket's pause() and resume() stop and restart the reading in that mode.
 */
const READ_SLOTS = ((): { buffer: symbol; callback: symbol } | null => {
  const probe = new Socket();
  const named = (name: string) => Object.getOwnPropertySymbols(probe).find((k) => k.description === name);
  const buffer = named('kBuffer');
  const callback = named('kBufferCb');
  probe.destroy();
  return buffer && callback ? { buffer, callback } : null;
})();

/** Whether this Node lets the front read into its shared buffer (else it reads 'data' events). */
export const frontReadsIntoBuffer = (): boolean => READ_SLOTS !== null;

/** The handle method that makes the socket's reads land in a given buffer. */
interface UserBufferHandle {
  useUserBuffer(buffer: Uint8Array): void;
}
const userBufferHandle = (socket: Socket): UserBufferHandle | null => {
  const handle = (socket as unknown as { _handle?: Partial<UserBufferHandle> | null })._handle;
  return typeof handle?.useUserBuffer === 'function' ? (handle as UserBufferHandle) : null;
};

/**
 * Where every connection's reads land, one read at a time: a read is taken before the next one
 * is made, and what a connection keeps of it past its callback (an incomplete or held request)
 * is copied out first.
 */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

/** Node's default limit on a request head (--max-http-header-size). */
const MAX_HEAD = 16 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
const PREFIX = 'GET /v1/ip/';
const SUFFIX = ' HTTP/1.1';
/** RFC 9110 §5.6.2 token characters, by character code (below 128). */
const TOKEN = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
  TOKEN[c.charCodeAt(0)] = 1;

/** head[from, to) is a token. */
function isToken(head: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = head.charCodeAt(i);
    if (c >= 128 || TOKEN[c] === 0) return false;
  }
  return true;
}

/** head[from, to) is `lower` in any case (`lower` is lowercase letters and '-'). */
function nameIs(head: string, from: number, to: number, lower: string): boolean {
  if (to - from !== lower.length) return false;
  for (let i = 0; i < lower.length; i++)
    if ((head.charCodeAt(from + i) | 0x20) !== lower.charCodeAt(i)) return false;
  return true;
}

/** The header names the front acts on, lowercase. */
const NAMES = ['host', 'x-api-key', 'connection', 'content-length', 'transfer-encoding', 'expect', 'upgrade'];

/** The lowercase name of head[from, to) when the front acts on it, else null (no string made). */
function headerName(head: string, from: number, to: number): string | null {
  for (const name of NAMES) if (nameIs(head, from, to, name)) return name;
  return null;
}
/** Controls other than HTAB, and DEL, have no place in a field value (RFC 9110 §5.5). */
function badValue(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if ((c < 32 && c !== 9) || c === 127) return true;
  }
  return false;
}

const isBlank = (c: number): boolean => c === 32 || c === 9;

/** Printable ASCII only (no space, control or 8-bit byte): a request target Node reads as sent. */
function visible(url: string): boolean {
  for (let i = 0; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c <= 32 || c >= 127) return false;
  }
  return true;
}

interface FrontRequest {
  url: string;
  key: string;
}

/** The request head in `head` (without its final CRLFCRLF), when this front may answer it. */
export function readHead(head: string): FrontRequest | null {
  const lineEnd = head.indexOf('\r\n');
  if (lineEnd < 0) return null;
  if (!head.startsWith(PREFIX) || head.lastIndexOf(SUFFIX, lineEnd) !== lineEnd - SUFFIX.length) return null;
  const url = head.slice(4, lineEnd - SUFFIX.length);
  if (!visible(url)) return null;
  let key: string | undefined;
  let host = false;
  let i = lineEnd + 2;
  while (i < head.length) {
    let end = head.indexOf('\r\n', i);
    if (end < 0) end = head.length;
    const colon = head.indexOf(':', i);
    if (colon <= i || colon > end) return null;
    if (!isToken(head, i, colon)) return null;
    const name = headerName(head, i, colon);
    // The value without the optional whitespace around it (RFC 9110 §5.5: SP and HTAB).
    let from = colon + 1;
    let to = end;
    while (from < to && isBlank(head.charCodeAt(from))) from++;
    while (to > from && isBlank(head.charCodeAt(to - 1))) to--;
    const value = head.slice(from, to);
    if (badValue(value)) return null;
    switch (name) {
      case 'host':
        if (host) return null;
        host = true;
        break;
      case 'x-api-key':
        if (key !== undefined) return null;
        key = value;
        break;
      case 'connection':
        if (value.toLowerCase() !== 'keep-alive') return null;
        break;
      case 'content-length':
      case 'transfer-encoding':
      case 'expect':
      case 'upgrade':
        return null;
    }
    i = end + 2;
  }
  return host && key !== undefined ? { url, key } : null;
}

export interface FastFront {
  /** Ends the idle connections the front holds (the others after their answer). */
  close(): void;
}

export function installFastFront(
  server: Server,
  lookup: () => FastLookup | null,
  options: {
    keepAliveTimeoutMs: number;
    /** A new connection must send its first request within this time (Node's headersTimeout). */
    firstRequestTimeoutMs?: number;
    counted?: () => void;
    onError?: (err: unknown) => void;
    /** Read into the shared buffer where this Node allows it (default); false: 'data' events. */
    readIntoBuffer?: boolean;
  },
): FastFront {
  const slots = options.readIntoBuffer === false ? null : READ_SLOTS;
  const counted = options.counted ?? (() => undefined);
  // Node's own connection handling, called when a connection is handed over.
  const nodeListeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  const held = new Map<Socket, { busy: () => boolean }>();
  let closing = false;
  const keepAlive = `keep-alive\r\nKeep-Alive: timeout=${Math.floor(options.keepAliveTimeoutMs / 1000)}\r\n\r\n`;

  let dateSecond = -1;
  let dateText = '';
  const date = (): string => {
    const now = Date.now();
    const second = Math.floor(now / 1000);
    if (second !== dateSecond) {
      dateSecond = second;
      dateText = new Date(now).toUTCString();
    }
    return dateText;
  };

  server.on('connection', (socket: Socket) => {
    let buffered: Buffer | null = null;
    let waiting = false;
    let endAfterReply = false;
    /** The request at the head of `buffered` has had its key authenticated once. */
    let warmed = false;
    /** No request answered yet: the idle limit is the first-request one. */
    let fresh = true;
    const memo = keyMemo();

    const onTimeout = () => socket.destroy();
    const onError = () => socket.destroy();
    const onClose = () => held.delete(socket);
    // The client has sent its last byte (the server is half-open): finish like Node does, at
    // once when idle, else after the answer in flight.
    let ended = false;
    const onEnd = () => {
      ended = true;
      if (!waiting) socket.end();
    };

    const handOver = () => {
      socket.pause();
      if (intoBuffer && slots) {
        // The reads still land in the shared buffer: from now on each is handed to the stream as
        // a copy of its own, as Node would have (while Node's HTTP parser reads the socket
        // itself, which it does until an upgrade, this is not called at all).
        const target = socket as unknown as Record<symbol, unknown>;
        target[slots.callback] = (n: number, buf: Buffer) => socket.push(Buffer.from(buf.subarray(0, n)));
      } else socket.removeListener('data', onData);
      socket.removeListener('timeout', onTimeout);
      socket.removeListener('error', onError);
      socket.removeListener('close', onClose);
      socket.removeListener('end', onEnd);
      socket.removeListener('drain', onWritable);
      socket.setTimeout(0);
      held.delete(socket);
      // A copy: the bytes may still lie in the shared read buffer.
      if (buffered && buffered.length > 0) socket.unshift(Buffer.from(buffered));
      buffered = null;
      for (const listener of nodeListeners) listener.call(server, socket);
      socket.resume();
    };

    // While an answer is pending, and while the client does not read its answers, the socket
    // is not read either: what a client sends ahead waits in the kernel, not in memory here.
    let blocked = false;
    const onWritable = () => {
      blocked = false;
      if (!waiting) socket.resume();
    };
    const hold = () => {
      waiting = true;
      socket.pause();
    };
    const release = () => {
      waiting = false;
      if (!blocked) socket.resume();
    };

    const write = (status: number, headers: Record<string, string>, body: string, bytes: number) => {
      let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n`;
      for (const name in headers) head += `${name}: ${headers[name]}\r\n`;
      head += `content-type: application/json; charset=utf-8\r\ncontent-length: ${bytes}\r\nDate: ${date()}\r\nConnection: ${keepAlive}`;
      // All ASCII (the head always is; the body when its UTF-8 length is its length): written as
      // Latin-1, a copy, where UTF-8 would examine every character for the same bytes.
      if (!socket.write(head + body, bytes === body.length ? 'latin1' : 'utf8') && !blocked) {
        blocked = true;
        socket.pause();
        socket.once('drain', onWritable);
      }
    };

    // The reply of the request being taken (one at a time: a pending one holds the socket), now
    // or after its quota check; one function per connection, not one per request.
    let inTake = false;
    let replied = false;
    const onReply: FastReply = (status, headers, body, bytes) => {
      replied = true;
      write(status, headers, body, bytes);
      if (inTake) return;
      release();
      if (endAfterReply) socket.destroy();
      else drain();
    };

    // A failure here (a bug) costs this connection, never the process or a second answer.
    const drain = () => {
      try {
        drainNow();
        if (ended && !waiting && held.has(socket)) socket.end();
      } catch (err) {
        options.onError?.(err);
        socket.destroy();
      }
    };

    const drainNow = () => {
      while (!waiting && buffered !== null) {
        if (socket.destroyed) return;
        if (closing) return handOver();
        const end = buffered.indexOf(HEAD_END);
        if (end < 0 || end > MAX_HEAD) return handOver();
        const request = readHead(buffered.toString('latin1', 0, end));
        const fast = request ? lookup() : null;
        if (!request || !fast) return handOver();
        inTake = true;
        replied = false;
        const outcome = fast.take(request.url, request.key, onReply, memo);
        inTake = false;
        if (outcome === 'uncached' && !warmed) {
          // A key not (or no longer) cached: authenticate it once and read the request again;
          // a key that stays uncached (unknown, revoked) is the route's 401.
          hold();
          warmed = true;
          fast.warm(request.key).then(
            () => {
              release();
              drain();
            },
            () => {
              release();
              if (!socket.destroyed) handOver();
            },
          );
          return;
        }
        if (outcome !== 'taken') return handOver();
        warmed = false;
        counted();
        if (fresh) {
          fresh = false;
          socket.setTimeout(options.keepAliveTimeoutMs);
        }
        const rest = end + 4;
        buffered = rest < buffered.length ? buffered.subarray(rest) : null;
        if (!replied) hold();
      }
    };

    const onData = (chunk: Buffer) => {
      buffered = buffered === null ? chunk : Buffer.concat([buffered, chunk]);
      drain();
      // What is left of a read into the shared buffer is kept as a copy (concat made one).
      if (intoBuffer && buffered !== null && buffered.buffer === READ_BUFFER.buffer)
        buffered = Buffer.from(buffered);
    };

    socket.setTimeout(options.firstRequestTimeoutMs || options.keepAliveTimeoutMs);
    socket.on('timeout', onTimeout);
    socket.on('error', onError);
    socket.on('close', onClose);
    socket.on('end', onEnd);
    const handle = slots ? userBufferHandle(socket) : null;
    const intoBuffer = handle !== null;
    if (handle && slots) {
      const target = socket as unknown as Record<symbol, unknown>;
      target[slots.buffer] = READ_BUFFER;
      target[slots.callback] = (n: number) => onData(READ_BUFFER.subarray(0, n));
      handle.useUserBuffer(READ_BUFFER);
    } else socket.on('data', onData);
    // close() ends an idle connection now and one caught mid-answer after its reply.
    held.set(socket, {
      busy: () => {
        if (waiting) endAfterReply = true;
        return waiting;
      },
    });
  });

  return {
    close() {
      closing = true;
      for (const [socket, state] of held) if (!state.busy()) socket.destroy();
    },
  };
}
