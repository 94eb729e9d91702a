/**
 * The keyed `GET /v1/ip/{ip}` without the framework: the product's hottest request, answered
 * before Fastify when everything about it is known in memory: on the socket by fast-front.ts,
 * or on Node's request event (fastHandlerOf) for a connection Node holds.
 *
 * It takes a request only when the path is `/v1/ip/` plus address characters, the X-API-Key
 * is in the accounts cache (valid, not revoked) with `ip:read`, the address parses and a dataset
 * is loaded. Anything else (no key, an unknown or uncached key, a missing permission, an
 * invalid address, odd URL forms, HEAD, a closing server) goes to Fastify untouched, so the
 * route, its schema and the OpenAPI document stay the one definition. What it sends is what
 * the Fastify route sends, byte for byte except the request id and timing
 * (src/http/fast-lookup.test.ts compares the two paths): the same envelope, headers, quota
 * accounting, usage counting, answer cache and metrics series. The permission rule and the
 * charge (quota, then usage) are key-access.ts's, the error envelope plugins/errors.ts's: one
 * implementation for both paths. It exists because the
 * framework's per-request work (routing, hooks, reply objects, schema serialization of the
 * whole envelope) cost more than the lookup itself; docs/benchmarks.md shows the gain.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Accounts, Principal } from '../accounts/index.ts';
import { AppError } from '../core/errors.ts';
import { type IpWords, ipWords, readIp } from '../core/ip.ts';
import type { IntelRuntime } from '../intel/index.ts';
import { type LimitState, type Limits, rateLimitHeaderValues } from '../limits/index.ts';
import { isStoreUnavailable } from '../store/index.ts';
import { chargeKey, keyMay } from './key-access.ts';
import { errorBody, storeUnavailable } from './plugins/errors.ts';
import type { RouteRecorder } from './plugins/metrics.ts';
import { IpParam } from './schemas.ts';

const PREFIX = '/v1/ip/';
/** The route's own limit on the parameter. */
const MAX_PARAM = IpParam.properties.ip.maxLength ?? 100;

export interface FastLookupOptions {
  accounts: Accounts;
  limits: Limits;
  runtime: IntelRuntime;
  /** The route's metrics series (`GET`, `/v1/ip/:ip`). */
  record: RouteRecorder;
  /** True once the server is closing: Fastify then answers 503 itself. */
  closing(): boolean;
  /** Logs an unexpected failure with its request id (the caller gets 500 INTERNAL). */
  logError(err: unknown, requestId: string): void;
}

/**
 * Writes one response: status, headers (without content-type/length), the JSON body and its
 * length in UTF-8 bytes (known without encoding the body).
 */
export type FastReply = (
  status: number,
  headers: Record<string, string>,
  body: string,
  bytes: number,
) => void;

/**
 * What became of a request: `taken` (the reply is called once, now or after the quota check);
 * `declined` (nothing touched: the route answers it); `uncached` (the key is well-formed but not
 * in the accounts cache: nothing touched; `warm` it and ask again, or let the route answer).
 */
export type FastOutcome = 'taken' | 'declined' | 'uncached';

/**
 * The last key presented on one connection and its digest (accounts.keyHash; null: not a key).
 * A client sends the same key on request after request; the digest (a SHA-256) is the largest
 * single cost of a cached lookup. The key is compared with the one the same connection sent
 * before, never with another client's or a stored one, so the comparison tells its timing to
 * nobody but the client that sent both.
 */
export interface KeyMemo {
  key: string;
  hash: string | null;
}

export const keyMemo = (): KeyMemo => ({ key: '', hash: null });

export interface FastLookup {
  /** A GET of `url` with X-API-Key `presented`; `memo` is the connection's (KeyMemo). */
  take(url: string, presented: string | undefined, reply: FastReply, memo?: KeyMemo): FastOutcome;
  /** Authenticates a key through the store, so that a valid one is cached afterwards. */
  warm(presented: string): Promise<void>;
}

/** The same on Node's request event (a connection the socket front handed to Node). */
export type FastHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

/** Hex digits, dots and colons only: no percent-encoding, query, fragment or zone id. */
function addressChars(url: string, from: number): boolean {
  const n = url.length;
  if (n === from || n - from > MAX_PARAM) return false;
  for (let i = from; i < n; i++) {
    const c = url.charCodeAt(i);
    const ok =
      (c >= 48 && c <= 58) || // 0-9 and ':'
      c === 46 || // '.'
      (c >= 65 && c <= 70) || // A-F
      (c >= 97 && c <= 102); // a-f
    if (!ok) return false;
  }
  return true;
}

/**
 * One answer whatever fails after it (a catch in `take` must not write a second one). The
 * returned function is anonymous on purpose: tsx compiles with esbuild's keepNames, which
 * names a function bound to a `const` through Object.defineProperty on every creation, a
 * measurable cost on a path that creates one per request.
 */
function onlyOnce(reply: FastReply): FastReply {
  let replied = false;
  return (status, headers, body, bytes) => {
    if (replied) return;
    replied = true;
    reply(status, headers, body, bytes);
  };
}

const ignoreReply: FastReply = () => undefined;

/** A plain `/v1/ip/` path with address characters only: the one URL form taken. */
const takesUrl = (url: string): boolean => url.startsWith(PREFIX) && addressChars(url, PREFIX.length);

/** The digest of `key` (null: not a key), from the connection's memo when it last sent the same key. */
function memoHash(accounts: Accounts, key: string, memo: KeyMemo | undefined): string | null {
  if (memo === undefined) return accounts.keyHash(key);
  if (memo.key !== key) {
    memo.key = key;
    memo.hash = accounts.keyHash(key);
  }
  return memo.hash;
}

function rateHeaders(headers: Record<string, string>, state: LimitState | null): void {
  if (state) Object.assign(headers, rateLimitHeaderValues(state));
}

const elapsedMs = (started: number) => Math.round(performance.now() - started);

/** The error a failed answer is written as: its own AppError, 503 for a store outage, else 500 INTERNAL. */
function failureOf(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isStoreUnavailable(err)) return storeUnavailable(err);
  return new AppError('INTERNAL', 'internal error; the request id identifies it in the logs');
}

/**
 * `warm` of FastLookup: one store read per key at a time, so that when a cached key expires
 * (PostgreSQL: every second) the connections using it do not all ask at once.
 */
function keyWarmer(accounts: Accounts): FastLookup['warm'] {
  const warming = new Map<string, Promise<void>>();
  return (presented) => {
    // Keyed by the key itself for as long as its one store read is pending (authenticate
    // hashes it; a second hash here would only name the same entry).
    const key = presented.trim();
    let pending = warming.get(key);
    if (!pending) {
      pending = accounts
        .authenticate(key)
        .then(() => undefined)
        .finally(() => warming.delete(key));
      warming.set(key, pending);
    }
    return pending;
  };
}

export function createFastLookup(options: FastLookupOptions): FastLookup {
  const { accounts, limits, runtime, record } = options;

  function send(
    reply: FastReply,
    started: number,
    status: number,
    body: string,
    headers: Record<string, string>,
    bytes = Buffer.byteLength(body),
  ): void {
    sent = true;
    reply(status, headers, body, bytes);
    record(status, (performance.now() - started) / 1000);
  }

  /** Set by send: lets the synchronous path tell whether a throw came after its answer. */
  let sent = false;

  function answer(
    reply: FastReply,
    started: number,
    id: string,
    ip: IpWords,
    state: LimitState | null,
  ): void {
    const r = runtime.lookupCachedJson(ip);
    const headers: Record<string, string> = { 'x-request-id': id };
    if (!r) {
      // The dataset went away between the check and now (it never does today): as the route.
      rateHeaders(headers, state);
      const err = new AppError('NOT_READY', 'the dataset is still being built; retry shortly');
      send(reply, started, err.status, errorBody(err, elapsedMs(started), id), headers);
      return;
    }
    const cacheStatus = r.hit ? 'HIT' : 'MISS';
    headers['x-cache-status'] = cacheStatus;
    rateHeaders(headers, state);
    if (r.json === null) {
      const meta = { cache_status: cacheStatus, dataset_version: r.datasetVersion };
      const err = new AppError('NOT_FOUND', 'no data found for IP', { meta });
      send(reply, started, 404, errorBody(err, elapsedMs(started), id), headers);
      return;
    }
    // Meta in the schema's order, as the route's serializer writes it (schemas.ts Meta). All
    // but the answer is ASCII, so the body's byte length is the answer's plus the rest's length.
    const body = `{"data":${r.json},"meta":{"processing_time_ms":${elapsedMs(started)},"request_id":"${id}","cache_status":"${cacheStatus}","dataset_version":${r.datasetVersion}}}`;
    send(reply, started, 200, body, headers, body.length + r.jsonExtraBytes);
  }

  function failed(reply: FastReply, started: number, id: string, err: unknown): void {
    if (!(err instanceof AppError || isStoreUnavailable(err))) options.logError(err, id);
    const appErr = failureOf(err);
    const headers: Record<string, string> = { 'x-request-id': id, ...appErr.headers };
    send(reply, started, appErr.status, errorBody(appErr, elapsedMs(started), id), headers);
  }

  /**
   * The answer of a key with no quota to check, for the address in `scratch`: answered now, so
   * a flag does what onlyOnce does on the quota path, without a closure per request.
   */
  function answerNow(reply: FastReply, started: number, id: string): void {
    sent = false;
    try {
      answer(reply, started, id, scratch, null);
    } catch (err) {
      failed(sent ? ignoreReply : reply, started, id, err);
    }
  }

  // The address of the request being taken, read in place (readIp); an answer that waits for the
  // quota check reads it again into its own, since the next request reuses this one.
  const scratch = ipWords();

  const take = (
    url: string,
    presented: string | undefined,
    reply: FastReply,
    memo?: KeyMemo,
  ): FastOutcome => {
    if (!takesUrl(url) || presented === undefined || options.closing()) return 'declined';
    const hash = memoHash(accounts, presented.trim(), memo);
    if (hash === null) return 'declined';
    const principal: Principal | null = accounts.cachedPrincipalByHash(hash);
    if (!principal) return 'uncached';
    if (!keyMay(principal, 'ip:read')) return 'declined';
    const text = url.slice(PREFIX.length);
    if (!readIp(text, scratch) || !runtime.current()) return 'declined';

    const started = performance.now();
    const id = randomUUID();
    // The access hook's charge (key-access.ts); an unlimited tier's is done at once.
    const charged = chargeKey(accounts, limits, principal);
    if (charged === null) {
      answerNow(reply, started, id);
      return 'taken';
    }
    const once = onlyOnce(reply);
    const ip = ipWords();
    readIp(text, ip);
    charged
      .then((state) => answer(once, started, id, ip, state))
      .catch((err: unknown) => failed(once, started, id, err));
    return 'taken';
  };
  return { take, warm: keyWarmer(accounts) };
}

/** The fast lookup on Node's request event. */
export function fastHandlerOf(lookup: FastLookup, counted: () => void = () => undefined): FastHandler {
  return (req, res) => {
    if (req.method !== 'GET' || req.url === undefined) return false;
    const presented = req.headers['x-api-key'];
    if (typeof presented !== 'string') return false;
    const outcome = lookup.take(req.url, presented, (status, headers, body, bytes) => {
      headers['content-type'] = 'application/json; charset=utf-8';
      headers['content-length'] = String(bytes);
      res.writeHead(status, headers);
      res.end(body);
    });
    if (outcome !== 'taken') return false;
    counted();
    return true;
  };
}
