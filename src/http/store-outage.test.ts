/**
 * Store outage (issue 20, finding 5): every route of the route table is called with the store
 * up, out and back, with no restart in between.
 * - PostgreSQL sits behind a TCP proxy on 127.0.0.1 that the test cuts (open connections
 *   destroyed, new ones closed at once) and restores: every route that needs the store answers
 *   503 STORE_UNAVAILABLE (reputation keeps its documented EVIDENCE_UNAVAILABLE, /readyz
 *   NOT_READY), never 500, and /openapi.json lists that code on it.
 * - SQLite: the file made unreadable and replaced under the running app is no outage (the app
 *   holds the file it opened): every route answers as before. Another connection holding the
 *   write lock is one: the routes that write answer 503, reads go on.
 * After the store returns, every route answers as it did before.
 */
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS, createTestApp, type TestApp } from '../../test/helpers/app.ts';
import { TEST_POSTGRES_URL } from '../../test/helpers/backends.ts';
import '../../test/helpers/dns-guard.ts';
import { startZoneServer, type ZoneServer } from '../../test/helpers/dns-zone-server.ts';
import { datasetFixture } from '../../test/helpers/intel-app.ts';
import {
  createTestStore,
  type StoreKind,
  skipStore,
  type TestStoreHandle,
} from '../../test/helpers/stores.ts';
import { startTcpProxy, type TcpProxy } from '../../test/helpers/tcp-proxy.ts';
import { systemClock } from '../core/clock.ts';
import { buildDataset } from '../dataset/index.ts';

/**
 * What a route answers while the store is out (HTML_503: an HTML page of status 503 that says
 * to try again, for the pages people read).
 */
type OnOutage = 'STORE_UNAVAILABLE' | 'EVIDENCE_UNAVAILABLE' | 'NOT_READY' | 'HTML_503' | 'same';

interface Case {
  method: 'GET' | 'POST' | 'DELETE';
  /** The route as registered (the route table's url). */
  route: string;
  /** The request path (route parameters filled in). */
  path: string;
  body?: unknown;
  /** No key: a public or unauthenticated route. */
  anonymous?: boolean;
  outage: OnOutage;
  /** While another connection holds SQLite's write lock (default: as before). */
  sqliteLocked?: OnOutage;
}

const IP = '45.33.29.1';

/**
 * SQLite with another connection holding the write lock (WAL: reads go on): the routes that
 * write, or read inside a write transaction, answer 503; the rest answer as before. Reputation
 * answers (single, batch, warm-up) are reads: their computations are written behind them
 * (src/reputation/write-behind.ts), once the lock is gone.
 */
const SQLITE_LOCKED: Record<string, OnOutage> = {
  'POST /v1/admin/keys/:key_id/features': 'STORE_UNAVAILABLE',
  'DELETE /v1/admin/keys/:key_id': 'STORE_UNAVAILABLE',
  'GET /v1/blocklist/stats': 'STORE_UNAVAILABLE',
  'GET /v1/blocklist/recent': 'STORE_UNAVAILABLE',
  'POST /v1/admin/blocklist/listings': 'STORE_UNAVAILABLE',
  'POST /v1/email/pool/classify': 'EVIDENCE_UNAVAILABLE',
  'POST /v1/email/telemetry/ingest': 'STORE_UNAVAILABLE',
  'POST /v1/email/reports': 'STORE_UNAVAILABLE',
  'POST /v1/admin/evidence': 'STORE_UNAVAILABLE',
  'POST /v1/audit/jobs': 'STORE_UNAVAILABLE',
  'POST /v1/saved-ips': 'STORE_UNAVAILABLE',
  'DELETE /v1/saved-ips/:ip': 'STORE_UNAVAILABLE',
  'DELETE /v1/webhooks/:id': 'STORE_UNAVAILABLE',
  'POST /v1/webhooks': 'STORE_UNAVAILABLE',
};

/** Keyed routes whose handler reads reputation evidence: past authentication, EVIDENCE_UNAVAILABLE. */
const HANDLER_EVIDENCE = new Set([
  '/v1/email/ip/:ip/neighbors',
  '/v1/email/ip/:ip/warmup',
  '/v1/email/pool/classify',
]);

/** One valid request per route of the table; the test fails when a route has none. */
function cases(keyId: number, datasetVersion = 1): Case[] {
  return routeCases(keyId, datasetVersion).map((c) => ({
    ...c,
    sqliteLocked: SQLITE_LOCKED[`${c.method} ${c.route}`] ?? 'same',
  }));
}

function routeCases(keyId: number, datasetVersion: number): Case[] {
  const keyed = (method: Case['method'], route: string, path: string, body?: unknown): Case => ({
    method,
    route,
    path,
    ...(body === undefined ? {} : { body }),
    outage: 'STORE_UNAVAILABLE',
  });
  const open = (
    method: Case['method'],
    route: string,
    path: string,
    outage: OnOutage,
    body?: unknown,
  ): Case => ({
    method,
    route,
    path,
    anonymous: true,
    ...(body === undefined ? {} : { body }),
    outage,
  });
  const headers =
    'Received: from a.example.com (a.example.com [192.0.2.1]) by b.example.com; Mon, 15 Jun 2026 11:00:00 +0000\r\nFrom: a@example.com\r\nSubject: hi\r\n';
  return [
    open('GET', '/metrics', '/metrics', 'same'),
    open('GET', '/healthz', '/healthz', 'same'),
    open('GET', '/openapi.json', '/openapi.json', 'same'),
    // #36 item 3: the API guide drawn from the OpenAPI document needs no store.
    open('GET', '/docs', '/docs', 'same'),
    open('GET', '/docs/:tag', '/docs/ip', 'same'),
    open('GET', '/readyz', '/readyz', 'NOT_READY'),
    keyed('POST', '/v1/admin/keys/:key_id/features', `/v1/admin/keys/${keyId}/features`, {
      telemetry_ingest: true,
    }),
    keyed('DELETE', '/v1/admin/keys/:key_id', '/v1/admin/keys/999999'),
    open('GET', '/v1/public/blocklist/ip/:ip', `/v1/public/blocklist/ip/${IP}`, 'STORE_UNAVAILABLE'),
    open('GET', '/v1/public/blocklists/ip/:ip', `/v1/public/blocklists/ip/${IP}`, 'STORE_UNAVAILABLE'),
    keyed('GET', '/v1/blocklist/ip/:ip', `/v1/blocklist/ip/${IP}`),
    keyed('POST', '/v1/blocklist/check', '/v1/blocklist/check', { ips: [IP, '8.8.8.8'] }),
    keyed('GET', '/v1/blocklist/stats', '/v1/blocklist/stats'),
    keyed('GET', '/v1/blocklist/recent', '/v1/blocklist/recent'),
    keyed('POST', '/v1/admin/blocklist/listings', '/v1/admin/blocklist/listings', {
      ip: '198.51.100.7',
      type: 'spam',
      reason: 'outage test',
    }),
    keyed('DELETE', '/v1/admin/blocklist/listings/:ip', '/v1/admin/blocklist/listings/198.51.100.9'),
    keyed('GET', '/v1/email/domain/:domain/dns', '/v1/email/domain/example.com/dns'),
    keyed('GET', '/v1/email/domain//dns', '/v1/email/domain//dns'),
    open('GET', '/v1/public/tools/domain-check/:domain', '/v1/public/tools/domain-check/example.com', 'same'),
    open('GET', '/v1/public/tools/domain-check/', '/v1/public/tools/domain-check/', 'same'),
    keyed('GET', '/v1/tools/domain-check/:domain', '/v1/tools/domain-check/example.com'),
    keyed('GET', '/v1/tools/domain-check/', '/v1/tools/domain-check/'),
    keyed('GET', '/v1/email/spf/check', '/v1/email/spf/check?domain=example.com&ip=192.0.2.1'),
    open('POST', '/v1/public/tools/header-analyzer', '/v1/public/tools/header-analyzer', 'same', { headers }),
    keyed('POST', '/v1/tools/header-analyzer', '/v1/tools/header-analyzer', { headers }),
    open('GET', '/v1/email/ip/:ip/reputation', `/v1/email/ip/${IP}/reputation`, 'EVIDENCE_UNAVAILABLE'),
    open('POST', '/v1/email/reputation/batch', '/v1/email/reputation/batch', 'EVIDENCE_UNAVAILABLE', {
      ips: [IP],
    }),
    keyed('GET', '/v1/email/ip/:ip/neighbors', `/v1/email/ip/${IP}/neighbors`),
    keyed('GET', '/v1/email/ip/:ip/warmup', `/v1/email/ip/${IP}/warmup`),
    keyed('POST', '/v1/email/pool/classify', '/v1/email/pool/classify', { ips: [IP] }),
    keyed('GET', '/v1/email/reports', '/v1/email/reports'),
    keyed('GET', '/v1/email/reports/rejected', '/v1/email/reports/rejected'),
    keyed('GET', '/v1/email/reports/:id', '/v1/email/reports/1'),
    keyed('GET', '/v1/email/reports/domains', '/v1/email/reports/domains'),
    keyed(
      'GET',
      '/v1/email/reports/domains/:domain/summary',
      '/v1/email/reports/domains/example.com/summary',
    ),
    keyed(
      'GET',
      '/v1/email/reports/domains/:domain/sources',
      '/v1/email/reports/domains/example.com/sources',
    ),
    keyed(
      'GET',
      '/v1/email/reports/domains/:domain/sources.csv',
      '/v1/email/reports/domains/example.com/sources.csv',
    ),
    keyed(
      'GET',
      '/v1/email/reports/domains/:domain/failures',
      '/v1/email/reports/domains/example.com/failures',
    ),
    keyed('GET', '/v1/email/reports/domains/:domain/tls', '/v1/email/reports/domains/example.com/tls'),
    // Not a report: refused with the reason, and the refusal kept for inspection (a write).
    keyed('POST', '/v1/email/reports', '/v1/email/reports', { a: 1 }),
    keyed('POST', '/v1/email/telemetry/ingest', '/v1/email/telemetry/ingest', {
      observations: [{ ip: IP, volume_24h: 1000, bounce_rate: 0.01, complaint_rate: 0 }],
    }),
    keyed('POST', '/v1/admin/evidence', '/v1/admin/evidence', {
      events: [{ ip: IP, kind: 'recycled_trap', observed_at: '2026-06-15T11:00:00Z' }],
    }),
    keyed('GET', '/v1/feeds', '/v1/feeds'),
    keyed('GET', '/v1/feeds/:feed/manifest', '/v1/feeds/spam/manifest'),
    keyed('GET', '/v1/feeds/:feed/download/:format', '/v1/feeds/spam/download/plain'),
    keyed('GET', '/v1/ip/:ip', '/v1/ip/8.8.8.8'),
    keyed('POST', '/v1/ip/batch', '/v1/ip/batch', { ips: ['8.8.8.8', IP] }),
    open('GET', '/v1/public/ip/:ip', '/v1/public/ip/8.8.8.8', 'same'),
    open('GET', '/v1/public/myip', '/v1/public/myip', 'same'),
    keyed('GET', '/v1/asn/search', '/v1/asn/search?q=google'),
    keyed('GET', '/v1/asn/stats', '/v1/asn/stats'),
    keyed('GET', '/v1/asn/:asn', '/v1/asn/15169'),
    open('GET', '/v1/public/asn/:asn', '/v1/public/asn/15169', 'same'),
    keyed('POST', '/v1/admin/datasets/reload', '/v1/admin/datasets/reload'),
    open('GET', '/dashboard', '/dashboard', 'same'),
    open('GET', '/dashboard/login', '/dashboard/login', 'same'),
    // The sign-in reads the store: a 503 page that says to retry (not the JSON envelope).
    open('POST', '/dashboard/login', '/dashboard/login', 'HTML_503', {
      email: 'nobody@example.test',
      password: 'x',
    }),
    open('POST', '/dashboard/logout', '/dashboard/logout', 'same', {}),
    open('GET', '/dashboard/keys', '/dashboard/keys', 'same'),
    open('POST', '/dashboard/keys', '/dashboard/keys', 'same', {}),
    open('POST', '/dashboard/keys/:id/revoke', '/dashboard/keys/1/revoke', 'same', {}),
    open('POST', '/dashboard/keys/:id/features', '/dashboard/keys/1/features', 'same', {}),
    open('GET', '/dashboard/blocklist', '/dashboard/blocklist', 'same'),
    open('POST', '/dashboard/blocklist/list', '/dashboard/blocklist/list', 'same', {}),
    open('POST', '/dashboard/blocklist/delist', '/dashboard/blocklist/delist', 'same', {}),
    // Issue 32: the administrators' users page and its unlock form.
    open('GET', '/dashboard/users', '/dashboard/users', 'same'),
    open('POST', '/dashboard/users/unlock', '/dashboard/users/unlock', 'same', {}),
    // Issue 16: audit jobs (owner-scoped rows in the store).
    keyed('POST', '/v1/audit/jobs', '/v1/audit/jobs', {
      ips: ['192.0.2.7'],
      dataset_version: datasetVersion,
      seed: 'outage',
    }),
    keyed('GET', '/v1/audit/jobs', '/v1/audit/jobs'),
    keyed('GET', '/v1/audit/jobs/:id', '/v1/audit/jobs/999999'),
    keyed('GET', '/v1/audit/jobs/:id/result', '/v1/audit/jobs/999999/result'),
    keyed('POST', '/v1/audit/jobs/:id/cancel', '/v1/audit/jobs/999999/cancel', {}),
    // Issue 17: saved IPs and webhooks (owner-scoped rows in the store).
    keyed('POST', '/v1/saved-ips', '/v1/saved-ips', { ip: IP, label: 'outage' }),
    keyed('GET', '/v1/saved-ips', '/v1/saved-ips'),
    keyed('DELETE', '/v1/saved-ips/:ip', '/v1/saved-ips/198.51.100.9'),
    keyed('POST', '/v1/webhooks', '/v1/webhooks', { url: 'http://127.0.0.1:9/outage' }),
    keyed('GET', '/v1/webhooks', '/v1/webhooks'),
    keyed('DELETE', '/v1/webhooks/:id', '/v1/webhooks/999999'),
    keyed('GET', '/v1/webhooks/:id/deliveries', '/v1/webhooks/999999/deliveries'),
    keyed('POST', '/v1/webhooks/:id/test', '/v1/webhooks/999999/test', {}),
    // Issue 19: the tool pages. The forms need nothing from the store; the IP, domain and header
    // questions neither (the dataset and DNS); the blocklist question reads the store: a 503 page.
    open('GET', '/', '/', 'same'),
    open('GET', '/tools/ip', '/tools/ip?ip=8.8.8.8', 'same'),
    open('GET', '/tools/domain', '/tools/domain', 'same'),
    open('GET', '/tools/headers', '/tools/headers', 'same'),
    open('POST', '/tools/headers', '/tools/headers', 'same', { headers }),
    open('GET', '/tools/blocklist', `/tools/blocklist?ip=${IP}`, 'HTML_503'),
    // Issue 19 and 17: dashboard pages (no session: the sign-in page, as before).
    open('GET', '/dashboard/audit', '/dashboard/audit', 'same'),
    open('POST', '/dashboard/audit', '/dashboard/audit', 'same', {}),
    open('GET', '/dashboard/audit/:id', '/dashboard/audit/1', 'same'),
    open('POST', '/dashboard/audit/:id/cancel', '/dashboard/audit/1/cancel', 'same', {}),
    open('GET', '/dashboard/saved-ips', '/dashboard/saved-ips', 'same'),
    open('GET', '/feeds', '/feeds', 'same'),
    open('GET', '/dashboard/password', '/dashboard/password', 'same'),
    open('POST', '/dashboard/password', '/dashboard/password', 'same', {}),
    open('GET', '/dashboard/keys/:id/revoke', '/dashboard/keys/1/revoke', 'same'),
    open('GET', '/dashboard/webhooks', '/dashboard/webhooks', 'same'),
    open('POST', '/dashboard/webhooks', '/dashboard/webhooks', 'same', {}),
    open('POST', '/dashboard/webhooks/:id/delete', '/dashboard/webhooks/1/delete', 'same', {}),
    open('POST', '/dashboard/webhooks/:id/test', '/dashboard/webhooks/1/test', 'same', {}),
    open('POST', '/dashboard/saved-ips', '/dashboard/saved-ips', 'same', {}),
    open('POST', '/dashboard/saved-ips/remove', '/dashboard/saved-ips/remove', 'same', {}),
    // Issue 38: the reports pages (no session: the sign-in page).
    open('GET', '/dashboard/reports', '/dashboard/reports', 'same'),
    open('GET', '/dashboard/reports/rejected', '/dashboard/reports/rejected', 'same'),
    open('GET', '/dashboard/reports/:domain', '/dashboard/reports/example.com', 'same'),
    open(
      'GET',
      '/dashboard/reports/:domain/sources.csv',
      '/dashboard/reports/example.com/sources.csv',
      'same',
    ),
    open('POST', '/dashboard/reports/upload', '/dashboard/reports/upload', 'same', {}),
  ];
}

let clientSeq = 0;
const nextClient = () => `10.77.${Math.floor(++clientSeq / 250) % 250}.${(clientSeq % 250) + 1}`;

type Answer = { status: number; code: string | undefined; body: string };

async function call(t: TestApp, c: Case, key: string | null): Promise<Answer> {
  const res = await t.app.http.inject({
    method: c.method,
    url: c.path,
    remoteAddress: nextClient(),
    headers: key && !c.anonymous ? { 'x-api-key': key } : {},
    ...(c.body === undefined ? {} : { payload: c.body as Record<string, unknown> }),
  });
  let code: string | undefined;
  try {
    code = (res.json() as { data?: { code?: string } }).data?.code;
  } catch {
    code = undefined;
  }
  return { status: res.statusCode, code, body: res.body };
}

/** A way to take the store away under the running app and give it back. */
interface Outage {
  cut(): Promise<void>;
  restore(): Promise<void>;
}

const everything = {
  permissions: [...ALL_PERMISSIONS, 'admin' as const],
  features: ['telemetry_ingest' as const],
};

/** Each case called in turn with `keyOf(i)` (before and after the outage: the admin key). */
async function callEach(t: TestApp, table: Case[], keyOf: (i: number) => string): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const [i, c] of table.entries()) answers.push(await call(t, c, keyOf(i)));
  return answers;
}

/** Each case called until it answers below 500 (the store may take a moment to come back). */
async function callEachOnceBack(t: TestApp, table: Case[], key: string): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const c of table) {
    answers.push(
      await retryUntil(
        () => call(t, c, key),
        (r) => r.status < 500,
      ),
    );
  }
  return answers;
}

const line = (a: Answer | undefined) => `${a?.status} ${a?.code ?? ''}`.trim();

/** What is wrong with the answer `d` during the outage, against `want` and the answer `b` before. */
function duringProblem(
  name: string,
  want: OnOutage,
  b: Answer | undefined,
  d: Answer | undefined,
): string | undefined {
  if (want === 'same') {
    return d?.status !== b?.status ? `${name}: during ${line(d)}, expected as before ${line(b)}` : undefined;
  }
  if (want === 'HTML_503') {
    const page = d?.status === 503 && d.body.startsWith('<!doctype html>') && /try again/i.test(d.body);
    return page ? undefined : `${name}: during ${line(d)}, expected a 503 page: ${d?.body.slice(0, 100)}`;
  }
  if (d?.status !== 503 || d.code !== want) return `${name}: during ${line(d)}, expected 503 ${want}`;
  // (/readyz names the failing check with its cause, for operators: its documented answer.)
  if (want !== 'NOT_READY' && / at |ECONN|SQLITE|terminated/.test(d.body)) {
    return `${name}: the 503 body tells driver details: ${d.body}`;
  }
  return undefined;
}

/** What is wrong with one route's answers before (`b`), during (`d`) and after (`a`) the outage. */
function routeProblems(
  c: Case,
  want: OnOutage,
  b: Answer | undefined,
  d: Answer | undefined,
  a: Answer | undefined,
): string[] {
  const name = `${c.method} ${c.path}`;
  const problems: string[] = [];
  if (!b || b.status >= 500) problems.push(`${name}: before the outage ${line(b)}`);
  const during = duringProblem(name, want, b, d);
  if (during !== undefined) problems.push(during);
  if (a?.status !== b?.status)
    problems.push(`${name}: after the store returned ${line(a)}, expected ${line(b)}`);
  return problems;
}

/**
 * Calls every route with the store up, out and back, and lists what went wrong: a 5xx before,
 * an answer during the outage other than `expected(c)` (503 with that code, or the same status
 * as before for 'same'), a 503 body that tells driver details, or an answer after the store
 * returned that differs from before.
 */
async function walkOutage(t: TestApp, outage: Outage, expected: (c: Case) => OnOutage): Promise<string[]> {
  const adminKey = await t.key(everything);
  const keyId = (await t.app.services.accounts.listKeys({ ownerId: t.adminId }))[0]?.id ?? 1;
  const table = cases(keyId, t.app.services.datasetVersion() ?? 1);
  // The table covers the route table exactly: a new route needs its row here.
  const routes = t.app.http.routeList.map((r) => `${r.method} ${r.url}`).sort();
  expect(table.map((c) => `${c.method} ${c.route}`).sort()).toEqual(routes);

  // A key never seen by the auth cache per request while the store is out, so each request
  // has to read the store (a cached key would hide the outage on keyed routes).
  const freshKeys: string[] = [];
  for (const _ of table) freshKeys.push(await t.key(everything));

  const before = await callEach(t, table, () => adminKey);

  await outage.cut();
  let during: Answer[];
  try {
    during = await callEach(t, table, (i) => freshKeys[i] ?? adminKey);
  } finally {
    await outage.restore();
  }
  const after = await callEachOnceBack(t, table, adminKey);

  return table.flatMap((c, i) => routeProblems(c, expected(c), before[i], during[i], after[i]));
}

/**
 * The codes a route may answer (with 503) when the store is cut past authentication: the routes
 * built on reputation evidence say so (documented on them). (A cache entry that expired in
 * between fails authentication first: STORE_UNAVAILABLE.)
 */
function wantedPastAuth(c: Case): (string | undefined)[] {
  if (c.outage === 'same') return [];
  if (c.outage === 'HTML_503') return [undefined];
  return HANDLER_EVIDENCE.has(c.route) ? ['EVIDENCE_UNAVAILABLE', c.outage] : [c.outage];
}

/**
 * Calls a route with `key` cached, again with the proxy cut, and once more restored: what went
 * wrong, and whether the handler itself answered the outage (a keyed STORE_UNAVAILABLE route).
 */
async function cachedKeyOutage(
  t: TestApp,
  proxy: TcpProxy,
  c: Case,
  key: string,
): Promise<{ problems: string[]; handlerOutage: boolean }> {
  const before = await retryUntil(
    () => call(t, c, key),
    (r) => r.status < 500,
  );
  proxy.cut();
  const during = await call(t, c, key);
  proxy.restore();
  const after = await retryUntil(
    () => call(t, c, key),
    (r) => r.status < 500,
  );
  const name = `${c.method} ${c.path}`;
  const asBefore = during.status === before.status;
  const outage = during.status === 503 && wantedPastAuth(c).includes(during.code);
  const problems: string[] = [];
  if (!asBefore && !outage) problems.push(`${name}: during ${during.status} ${during.code ?? ''}`);
  if (after.status !== before.status)
    problems.push(`${name}: after ${after.status}, before ${before.status}`);
  return { problems, handlerOutage: outage && c.outage === 'STORE_UNAVAILABLE' && !c.anonymous };
}

/**
 * Domain checks read an empty zone on 127.0.0.1 (every name answered as absent): with no
 * resolver answering they would answer 503 DNS_UNAVAILABLE (issue 31), whatever the store does.
 */
let emptyZone: ZoneServer | undefined;
afterAll(async () => {
  await emptyZone?.close();
});

async function servingApp(handle: TestStoreHandle, kind: StoreKind): Promise<TestApp> {
  await buildDataset({ dataDir: handle.dataDir, clock: systemClock, npmDir: datasetFixture('npm-a') });
  emptyZone ??= await startZoneServer({});
  // A loopback webhook target is allowed so creating one reaches the store (no worker delivers).
  return await createTestApp(kind, {
    handle,
    config: { webhookAllowPrivate: true, workers: false, dnsServers: emptyZone.servers },
  });
}

describe.skipIf(skipStore('postgres'))('store outage on PostgreSQL (a TCP proxy cut and restored)', () => {
  let proxy: TcpProxy;
  let handle: TestStoreHandle;
  let t: TestApp;

  beforeAll(async () => {
    const u = new URL(TEST_POSTGRES_URL);
    proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port || 5432) });
    u.host = `127.0.0.1:${proxy.port}`;
    handle = await createTestStore('postgres', { postgresUrl: u.toString() });
    t = await servingApp(handle, 'postgres');
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await proxy?.close();
    await handle?.cleanup();
  });

  it('every store-dependent route answers 503 STORE_UNAVAILABLE (reputation EVIDENCE_UNAVAILABLE) while cut, and recovers alone', async () => {
    const problems = await walkOutage(
      t,
      { cut: async () => proxy.cut(), restore: async () => proxy.restore() },
      (c) => c.outage,
    );
    expect(problems).toEqual([]);
    expect(proxy.accepted).toBeGreaterThan(1);

    // /openapi.json lists the code on each documented route that answers it.
    const doc = (await t.app.http.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const undocumented: string[] = [];
    let checked = 0;
    for (const c of cases(1)) {
      const op = doc.paths[c.route.replace(/:([a-z_]+)/g, '{$1}')]?.[c.method.toLowerCase()];
      if (!op || c.outage === 'same' || c.outage === 'HTML_503') continue;
      checked += 1;
      if (!JSON.stringify(op.responses['503'] ?? {}).includes(c.outage))
        undocumented.push(`${c.method} ${c.route}`);
    }
    expect(undocumented).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(30);
  }, 180_000);

  it('with the key still in the auth cache, the handlers (own store calls) answer 503 too, never 500', async () => {
    // The cache holds a key for a second: each route is called once to cache it, then again with
    // the store cut, so the request passes authentication and fails inside the handler.
    const key = await t.key(everything);
    const keyId = (await t.app.services.accounts.listKeys({ ownerId: t.adminId }))[0]?.id ?? 1;
    const problems: string[] = [];
    let handlerOutages = 0;
    for (const c of cases(keyId, t.app.services.datasetVersion() ?? 1)) {
      const found = await cachedKeyOutage(t, proxy, c, key);
      problems.push(...found.problems);
      if (found.handlerOutage) handlerOutages += 1;
    }
    expect(problems).toEqual([]);
    // Blocklist, telemetry, evidence, admin writes...: the handler itself met the outage.
    expect(handlerOutages).toBeGreaterThanOrEqual(8);
  }, 180_000);
});

describe.skipIf(skipStore('postgres'))('store outage on PostgreSQL: the signed-in dashboard', () => {
  let proxy: TcpProxy;
  let handle: TestStoreHandle;
  let t: TestApp;

  beforeAll(async () => {
    const u = new URL(TEST_POSTGRES_URL);
    proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port || 5432) });
    u.host = `127.0.0.1:${proxy.port}`;
    handle = await createTestStore('postgres', { postgresUrl: u.toString() });
    t = await servingApp(handle, 'postgres');
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await proxy?.close();
    await handle?.cleanup();
  });

  it('every dashboard page of a signed-in user answers a 503 page (Retry-After) while cut, and as before after', async () => {
    const user = { email: 'outage-admin@example.test', password: 'outage-password-1' };
    const { user: owner } = await t.app.services.accounts.createUser({ ...user, role: 'admin' });
    // A job of the user's own, so that the job page has one to show.
    const { job } = await t.app.services.audit.create(
      { ips: ['192.0.2.1'], dataset_version: t.app.services.datasetVersion() ?? 1, seed: 'outage' },
      { ownerId: owner.id, keyId: null },
    );
    const login = await t.app.http.inject({
      method: 'POST',
      url: '/dashboard/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `email=${encodeURIComponent(user.email)}&password=${user.password}`,
    });
    expect(login.statusCode).toBe(303);
    const cookie = String(login.headers['set-cookie']).split(';')[0] ?? '';
    const page = (url: string) => t.app.http.inject({ url, headers: { cookie } });
    await t.key();
    const keyId = (await t.app.services.accounts.listKeys({ ownerId: t.adminId }))[0]?.id ?? 1;
    // Every GET page of the dashboard in the route table (a new one is walked too) but the
    // sign-in form, which reads nothing.
    const pages = t.app.http.routeList
      .filter((r) => r.method === 'GET' && r.url.startsWith('/dashboard') && r.url !== '/dashboard/login')
      .map((r) => r.url.replace(':id', String(r.url.startsWith('/dashboard/audit') ? job.id : keyId)))
      .map((url) => url.replace(':domain', 'example.com'));
    expect(pages.length).toBeGreaterThanOrEqual(6);
    const problems: string[] = [];
    for (const url of pages) {
      const before = await retryUntil(
        () => page(url),
        (r) => r.statusCode < 500,
      );
      proxy.cut();
      const during = await page(url);
      proxy.restore();
      const after = await retryUntil(
        () => page(url),
        (r) => r.statusCode < 500,
      );
      if (before.statusCode >= 400) problems.push(`${url}: before ${before.statusCode}`);
      if (
        during.statusCode !== 503 ||
        during.headers['retry-after'] !== '5' ||
        !String(during.headers['content-type']).startsWith('text/html') ||
        !/try again/i.test(during.body) ||
        / at |ECONN|terminated/.test(during.body)
      )
        problems.push(`${url}: during ${during.statusCode} ${during.body.slice(0, 100)}`);
      if (after.statusCode !== before.statusCode)
        problems.push(`${url}: after ${after.statusCode}, before ${before.statusCode}`);
    }
    expect(problems).toEqual([]);
  }, 180_000);
});

describe('store outage on SQLite', () => {
  let handle: TestStoreHandle;
  let t: TestApp;

  beforeAll(async () => {
    handle = await createTestStore('sqlite');
    t = await servingApp(handle, 'sqlite');
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await handle?.cleanup();
  });

  it('a file made unreadable, then replaced by a copy, under the running app: every route answers as before', async () => {
    // The app holds the file open: SQLite keeps reading and writing the inode it opened, so
    // neither a chmod nor a rename over the path is an outage (no 500, no 503).
    const file = path.join(handle.dataDir, 'netrep.sqlite');
    const aside = `${file}.aside`;
    const problems = await walkOutage(
      t,
      {
        cut: async () => {
          fs.chmodSync(file, 0o000);
          fs.renameSync(file, aside);
          fs.writeFileSync(file, 'not a database');
          fs.chmodSync(file, 0o000);
        },
        restore: async () => {
          fs.rmSync(file, { force: true });
          fs.renameSync(aside, file);
          fs.chmodSync(file, 0o644);
        },
      },
      () => 'same',
    );
    expect(problems).toEqual([]);
  }, 180_000);

  it('the database locked by another writer: writing routes answer 503 STORE_UNAVAILABLE, reads go on, all recover', async () => {
    const sqlite = t.app.store.sqlite as SqliteDatabase.Database;
    const other = new SqliteDatabase(path.join(handle.dataDir, 'netrep.sqlite'));
    // The app waits 5 s for a lock (a blocked event loop each time): a short wait keeps the test fast.
    sqlite.pragma('busy_timeout = 20');
    try {
      const problems = await walkOutage(
        t,
        {
          cut: async () => {
            other.exec('begin immediate');
          },
          restore: async () => {
            other.exec('rollback');
          },
        },
        (c) => c.sqliteLocked ?? 'same',
      );
      expect(problems).toEqual([]);
      // The computations answered during the lock are written now that it is gone.
      await expect(t.app.services.reputation?.flush()).resolves.toBeUndefined();
      const written = sqlite.prepare('select count(*) as n from reputation_latest where ip = ?').get(IP);
      expect(written).toEqual({ n: 1 });
    } finally {
      sqlite.pragma('busy_timeout = 5000');
      other.close();
    }
  }, 180_000);
});

async function retryUntil<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}
