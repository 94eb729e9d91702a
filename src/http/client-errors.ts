/**
 * Answers for what Node's HTTP parser and timers reject before Fastify sees a request (a bad
 * Content-Length, obs-fold, an unknown method, a head over 16 KiB, a request not received in
 * time): the documented error envelope with an X-Request-ID, written on the socket, which is
 * then closed. So do an HTTP/1.1 request without one Host, an Expect Node does not know and
 * CONNECT, which Node would answer with an empty body or not at all. The socket front hands every connection it does not answer to the same Node
 * server, so both paths end here.
 */
import crypto from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { AppError, type ErrorCode } from '../core/errors.ts';
import { errorBody } from './plugins/errors.ts';

/** How long a refused connection may take to read its answer before it is cut. */
const LINGER_MS = 1000;

const ERRORS_PREFIX = 'the request is not valid HTTP/1.1: ';

/** llhttp error codes (err.code) and the sentence each answer gives. */
const PARSE_ERRORS: Record<string, string> = {
  HPE_INVALID_METHOD: 'unknown request method',
  HPE_INVALID_URL: 'the request target is malformed',
  HPE_INVALID_VERSION: 'unsupported HTTP version',
  HPE_INVALID_CONTENT_LENGTH: 'invalid Content-Length',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length together with Transfer-Encoding',
  HPE_INVALID_TRANSFER_ENCODING: 'invalid Transfer-Encoding',
  HPE_INVALID_CHUNK_SIZE: 'invalid chunk size in a chunked body',
  HPE_INVALID_HEADER_TOKEN: 'invalid header field (obs-fold and control characters are not accepted)',
  HPE_INVALID_CONSTANT: 'the request line is malformed',
  HPE_LF_EXPECTED: 'a line is not ended by CRLF',
  HPE_CR_EXPECTED: 'a line is not ended by CRLF',
};

/**
 * llhttp's own reasons (err.reason) where one code covers several faults: a bare LF after the
 * version is HPE_INVALID_VERSION, a doubled Content-Length HPE_UNEXPECTED_CONTENT_LENGTH (the
 * code of Content-Length with Transfer-Encoding too). A Node whose reasons read otherwise gets
 * the code's sentence.
 */
const PARSE_REASONS: Record<string, string> = {
  'Expected CRLF after version': 'a line is not ended by CRLF',
  'Duplicate Content-Length': 'more than one Content-Length',
  "Transfer-Encoding can't be present with Content-Length": 'Content-Length together with Transfer-Encoding',
};

/** The AppError a Node `clientError` stands for; null when there is nobody to answer. */
export function clientErrorOf(err: NodeJS.ErrnoException & { reason?: unknown }): AppError | null {
  const code = err.code ?? '';
  if (code === 'ECONNRESET' || code === 'EPIPE') return null;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new AppError('REQUEST_TIMEOUT');
  if (code === 'HPE_HEADER_OVERFLOW') return new AppError('REQUEST_HEADER_TOO_LARGE');
  const sentence =
    (typeof err.reason === 'string' ? PARSE_REASONS[err.reason] : undefined) ?? PARSE_ERRORS[code];
  return new AppError('MALFORMED_REQUEST', sentence ? `${ERRORS_PREFIX}${sentence}` : undefined);
}

/** A complete HTTP/1.1 response carrying `err`'s envelope; the connection closes after it. */
export function errorResponse(err: AppError, requestId: string = crypto.randomUUID()): string {
  const body = errorBody(err, 0, requestId);
  let head = `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? ''}\r\n`;
  for (const [name, value] of Object.entries(err.headers ?? {})) head += `${name}: ${value}\r\n`;
  head +=
    `x-request-id: ${requestId}\r\ncontent-type: application/json; charset=utf-8\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\nDate: ${new Date().toUTCString()}\r\nConnection: close\r\n\r\n`;
  return head + body;
}

/**
 * Writes `err` as the connection's last answer and closes it; what the client still sends is
 * read and dropped, and a client that does not read its answer is cut after a second.
 */
export function answerAndClose(socket: Socket, err: AppError): void {
  if (socket.destroyed) return;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.on('error', () => socket.destroy());
  socket.resume();
  if (socket.writable) socket.end(errorResponse(err));
  else socket.destroy();
}

/** Counts an answer given outside the routes, by its code (a metric). */
export type Rejected = (code: ErrorCode) => void;

/**
 * Fastify's `clientErrorHandler`: the envelope for Node's own rejections. Nothing is written
 * on a connection whose answer has already started (a timeout while a response streams).
 */
export function clientErrorHandlerOf(
  rejected: Rejected,
): (err: NodeJS.ErrnoException, socket: Socket) => void {
  return (err, socket) => {
    const appErr = clientErrorOf(err);
    const started = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (appErr === null || started) {
      socket.destroy();
      return;
    }
    rejected(appErr.code);
    answerAndClose(socket, appErr);
  };
}

/** The count of Host fields among a request's raw headers. */
function hostFields(raw: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    if (name?.length === 4 && name.toLowerCase() === 'host') n++;
  }
  return n;
}

/** Writes `err`'s envelope as the answer of a request Node parsed, and closes the connection. */
export function sendEnvelope(res: ServerResponse, err: AppError): void {
  const requestId = crypto.randomUUID();
  const body = errorBody(err, 0, requestId);
  res.shouldKeepAlive = false;
  res.writeHead(err.status, {
    ...err.headers,
    'x-request-id': requestId,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  res.end(body);
}

/**
 * RFC 9112 §3.2: an HTTP/1.1 request without Host, or with more than one, is a 400. Node's own
 * check (requireHostHeader) answers an empty 400 and lets a second Host through, so the server
 * turns it off and calls this first; true when it answered.
 */
export function refuseBadHost(req: IncomingMessage, res: ServerResponse, rejected: Rejected): boolean {
  const count = req.headers.host === undefined ? 0 : hostFields(req.rawHeaders);
  if (count === 1 || (count === 0 && (req.httpVersionMajor !== 1 || req.httpVersionMinor !== 1))) {
    return false;
  }
  const problem = count === 0 ? 'no Host header' : 'more than one Host header';
  rejected('MALFORMED_REQUEST');
  sendEnvelope(res, new AppError('MALFORMED_REQUEST', `${ERRORS_PREFIX}${problem}`));
  return true;
}

/**
 * The rest of Node's own answers: an Expect other than 100-continue (an empty 417) and CONNECT
 * (a silently closed connection) get the envelope.
 */
export function answerNodeRejections(server: Server, rejected: Rejected): void {
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    rejected('EXPECTATION_FAILED');
    sendEnvelope(res, new AppError('EXPECTATION_FAILED'));
  });
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    rejected('METHOD_NOT_ALLOWED');
    answerAndClose(socket, new AppError('METHOD_NOT_ALLOWED', 'CONNECT is not supported here'));
  });
}
