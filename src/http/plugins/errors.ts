/**
 * One error handler builds every error body (STYLE.md §5): AppError codes from the table,
 * Fastify's own parse/validation errors mapped to INVALID_BODY / INVALID_PARAMETER /
 * PAYLOAD_TOO_LARGE, unknown routes 404, known paths with the wrong method 405, a driver error
 * that means the store is out of reach 503 STORE_UNAVAILABLE, anything else 500 INTERNAL with a fixed sentence (the cause is logged with the request id).
 * A browser (Accept: text/html) outside the API paths gets the same status as an HTML page.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { AppError, type ErrorCode } from '../../core/errors.ts';
import { isStoreUnavailable } from '../../store/index.ts';
import { errorPage } from '../../web/error-page.ts';
import type { Access } from '../context.ts';
import { sendHtml } from '../html-reply.ts';
import { elapsedMs, rateLimitHeaders } from './envelope.ts';

/** Every registered route, for 405 detection and the shared route contract tests. */
export interface RouteInfo {
  method: string;
  url: string;
  access: Access;
  envelope: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    routeList: RouteInfo[];
  }
}

/** Required body fields whose absence (or a null) has its own code (spec §7). */
const REQUIRED_CODES: Record<string, ErrorCode> = { headers: 'MISSING_HEADERS' };

/** Array fields whose size cap has its own code (spec §7, CONTRACT §2). */
const SIZE_CODES: Record<string, ErrorCode> = {
  '/ips': 'TOO_MANY_IPS',
  '/observations': 'TOO_MANY_OBSERVATIONS',
};

interface ValidationIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
  /** The offending value (the body validator runs with `verbose`). */
  data?: unknown;
}

/**
 * Spec §4 rule 1: an entry of a batch's `ips` that is a number or a boolean is an invalid IP,
 * named as such; an object or array entry is a malformed body, and so is anything but a list
 * where the list belongs (`{"ips": "1.2.3.4"}`: CONTRACT §2, wrong shape).
 */
function invalidIpEntry(issue: ValidationIssue | undefined): AppError | null {
  if (issue?.keyword !== 'type') return null;
  const m = /^\/ips\/(\d+)$/.exec(issue.instancePath ?? '');
  if (!m) return null;
  const scalar =
    typeof issue.data === 'number' || typeof issue.data === 'boolean' || typeof issue.data === 'string';
  if (!scalar) return null;
  return new AppError('INVALID_IP', `invalid IP address: ips[${m[1]}] is ${JSON.stringify(issue.data)}`);
}

/** The field a body validation issue says was not given (absent, or explicitly null), else ''. */
function missingField(first: ValidationIssue | undefined, where: string): string {
  if (first?.keyword === 'required' && where === '') return String(first.params?.missingProperty);
  if (first?.keyword === 'type' && first.data === null && /^\/[a-z_]+$/.test(where)) return where.slice(1);
  return '';
}

/** The first issue of a body that fails its schema, as the code of the table that names it. */
function fromBodyValidation(first: ValidationIssue | undefined): AppError {
  const where = first?.instancePath ?? '';
  const sizeCode = SIZE_CODES[where];
  const ipEntry = invalidIpEntry(first);
  if (ipEntry) return ipEntry;
  // Absent, or explicitly null: both mean the field was not given.
  const requiredCode = REQUIRED_CODES[missingField(first, where)];
  if (requiredCode) return new AppError(requiredCode);
  if (first?.keyword === 'maxItems' && sizeCode) {
    return new AppError(
      sizeCode,
      `maximum ${String(first.params?.limit)} items in ${where.slice(1)} per request`,
    );
  }
  if (first?.keyword === 'additionalProperties') {
    return new AppError(
      'INVALID_BODY',
      `body${where} has an unknown field ${String(first.params?.additionalProperty)}`,
    );
  }
  return new AppError('INVALID_BODY', `body${where.replaceAll('/', '.')} ${first?.message ?? 'is invalid'}`);
}

function fromValidation(err: FastifyError): AppError {
  const issues = (err.validation ?? []) as ValidationIssue[];
  const first = issues[0];
  const context = err.validationContext ?? 'body';
  if (context === 'body') return fromBodyValidation(first);
  const where = first?.instancePath ?? '';
  const name = where.replace(/^\//, '') || (first?.params?.missingProperty as string | undefined) || context;
  return new AppError(
    'INVALID_PARAMETER',
    `${context === 'querystring' ? 'query parameter' : 'parameter'} ${name} ${first?.message ?? 'is invalid'}`,
  );
}

/** A Fastify error code of body parsing or routing as the code of the table, else null. */
function fromFastifyCode(code: string, type: string | undefined): AppError | null {
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new AppError('PAYLOAD_TOO_LARGE');
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new AppError('INVALID_BODY', 'content type must be application/json');
  }
  if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return new AppError('INVALID_BODY', 'request body is empty');
  if (code.startsWith('FST_ERR_CTP_') || type === 'entity.parse.failed') {
    return new AppError('INVALID_BODY', 'request body is not valid JSON');
  }
  if (code === 'FST_ERR_BAD_URL' || code === 'FST_ERR_ASYNC_CONSTRAINT') {
    return new AppError('INVALID_PARAMETER', 'the request path is malformed');
  }
  return null;
}

/** A 4xx status an error carries as the code of the table, else null. */
function fromClientStatus(status: unknown): AppError | null {
  if (typeof status !== 'number' || status < 400 || status >= 500) return null;
  if (status === 413) return new AppError('PAYLOAD_TOO_LARGE');
  if (status === 404) return new AppError('NOT_FOUND');
  if (status === 405) return new AppError('METHOD_NOT_ALLOWED');
  return new AppError('INVALID_BODY', 'the request is malformed');
}

function toAppError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  const fe = err as Partial<FastifyError>;
  if (!fe || typeof fe !== 'object') return null;
  if (fe.validation) return fromValidation(fe as FastifyError);
  return (
    fromFastifyCode(fe.code ?? '', (fe as { type?: string }).type) ??
    fromClientStatus((fe as { statusCode?: unknown }).statusCode)
  );
}

/** The error envelope's text (spec §7): every error body is built here. */
export function errorBody(err: AppError, processingMs: number, requestId: string): string {
  return JSON.stringify({
    data: { error: err.message, code: err.code },
    meta: { ...err.meta, processing_time_ms: processingMs, request_id: requestId },
  });
}

/** Paths programs call: their errors stay the JSON envelope whatever the client accepts. */
const API_PATH = /^\/(v1(\/|$)|openapi\.json|healthz|readyz|metrics)/;

/** A browser asking for a page (Accept: text/html) outside the API paths. */
function wantsPage(request: FastifyRequest): boolean {
  const path = request.url.split('?')[0] ?? '/';
  return !API_PATH.test(path) && /\btext\/html\b/i.test(String(request.headers.accept ?? ''));
}

export function sendError(request: FastifyRequest, reply: FastifyReply, err: AppError): FastifyReply {
  rateLimitHeaders(request, reply);
  for (const [k, v] of Object.entries(err.headers ?? {})) reply.header(k, v);
  if (wantsPage(request)) {
    const path = shownPath(request.url.split('?')[0] ?? '/');
    return sendHtml(reply, errorPage({ status: err.status, message: err.message, path }), err.status);
  }
  return reply
    .code(err.status)
    .type('application/json; charset=utf-8')
    .send(errorBody(err, elapsedMs(request), request.id));
}

/** A driver error that means the store is out of reach (store/unavailable.ts): 503, retry soon. */
export function storeUnavailable(cause: unknown): AppError {
  return new AppError('STORE_UNAVAILABLE', undefined, { cause, headers: { 'retry-after': '5' } });
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export function registerErrors(app: FastifyInstance): void {
  // A second router of every registered path tells a wrong method (405) from an unknown path (404).
  const paths = FindMyWay({ ignoreTrailingSlash: false, caseSensitive: true });
  const seen = new Set<string>();
  const routes: RouteInfo[] = [];
  app.decorate('routeList', routes);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) {
      const k = `${m} ${route.url}`;
      if (m === 'HEAD' || seen.has(k)) continue;
      seen.add(k);
      routes.push({
        method: m,
        url: route.url,
        access: route.config?.access ?? { kind: 'none' },
        envelope: route.config?.envelope !== false,
      });
      paths.on(m as 'GET', route.url, () => undefined);
    }
  });

  app.setErrorHandler((err, request, reply) => {
    const appErr = toAppError(err);
    if (appErr) return sendError(request, reply, appErr);
    if (isStoreUnavailable(err)) {
      request.log.warn({ err, reqId: request.id }, 'store unavailable');
      return sendError(request, reply, storeUnavailable(err));
    }
    request.log.error({ err, reqId: request.id }, 'unhandled error');
    return sendError(
      request,
      reply,
      new AppError('INTERNAL', 'internal error; the request id identifies it in the logs'),
    );
  });

  app.setNotFoundHandler((request, reply) => {
    const url = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((m) => m !== request.method && paths.find(m, url) !== null);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendError(
        request,
        reply,
        new AppError(
          'METHOD_NOT_ALLOWED',
          `${request.method} is not allowed here; use ${allowed.join(' or ')}`,
        ),
      );
    }
    return sendError(
      request,
      reply,
      new AppError('NOT_FOUND', `no route ${request.method} ${shownPath(url)}`),
    );
  });
}

/** A path as its characters: percent-encoded UTF-8 decoded; a path that is not UTF-8 as sent. */
function shownPath(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}
