/**
 * The hostile-input suite (issue 20): every route of the route table, driven with generated bad
 * input through app.inject: unicode, NUL, encoded junk, huge and negative numbers in every path
 * parameter; the same and duplicates in every query parameter; every body field replaced by each
 * wrong JSON type, removed, or its list blown up; whole bodies that are not objects, not JSON,
 * deeply nested, of the wrong content type; malformed, near-miss, huge and repeated API keys. No answer may be a 5xx; a 4xx must be the error
 * envelope with a code from the closed table, of that status, that /openapi.json documents for
 * the operation; a 2xx/3xx (input the route tolerates) is counted. The suite prints its case count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS, createTestApp, type TestApp } from '../../test/helpers/app.ts';
import '../../test/helpers/dns-guard.ts';
import { startZoneServer, type ZoneServer } from '../../test/helpers/dns-zone-server.ts';
import { datasetFixture } from '../../test/helpers/intel-app.ts';
import { createTestStore, type TestStoreHandle } from '../../test/helpers/stores.ts';
import { systemClock } from '../core/clock.ts';
import { ERRORS } from '../core/errors.ts';
import { buildDataset } from '../dataset/index.ts';

/** Strings for path and query parameters (encoded with encodeURIComponent). */
const TEXT_VALUES = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '1.2.3.4\u0000',
  '\u202e1.2.3.4',
  '😀',
  'é',
  'ﬀ',
  '\ufeff1.1.1.1',
  '١٢٣',
  '１.１.１.１',
  '.',
  '..',
  '../../etc/passwd',
  'x'.repeat(300),
  'x'.repeat(5000),
  '-1',
  '0',
  '-0',
  '4294967296',
  '-9007199254740993',
  '99999999999999999999999999',
  '1e309',
  '-1e309',
  'NaN',
  'Infinity',
  '0x1F',
  '1.5',
  'null',
  'true',
  '[]',
  '{}',
  '<script>alert(1)</script>',
  "' or 1=1--",
  '%',
  '::1.2.3.4',
  '1.2.3.4/24',
  '256.256.256.256',
  '::ffff:999.1.1.1',
  'fe80::1%eth0',
  '\r\nX-Injected: 1',
  '\t',
  'AS15169',
  'example..com',
  '-example.com',
];

/** Already percent-encoded junk: bad escapes, a lone surrogate, overlong UTF-8, encoded slashes. */
const RAW_VALUES = ['%00', '%ZZ', '%', '%ED%A0%80', '%C0%AE', '%FF%FE', '%2F', '%2e%2e', '%25', '%E2%80%AE'];

const PARAM_VALUES = [...TEXT_VALUES.map(encodeURIComponent), ...RAW_VALUES];

/** Wrong JSON for a body field. */
const WRONG_JSON: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  2 ** 53 + 2,
  '',
  '\u0000',
  'a\u0000b',
  '😀\u202e',
  'x'.repeat(70_000),
  [],
  [null],
  [1],
  [[]],
  [{}],
  {},
  { a: 1 },
  JSON.parse('{"__proto__":{"polluted":1}}'),
];

/** Whole bodies that are not the expected object. */
const RAW_BODIES = [
  'null',
  '[]',
  '1',
  '"x"',
  'true',
  '{',
  '{"a":',
  '{"a":1}}',
  '[{"a":1}',
  `${'['.repeat(5000)}${']'.repeat(5000)}`,
  `${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}`,
  '\u0000',
  '',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"admin":true}}}',
  '\ufeff{}',
  'NaN',
];

/** Bad X-API-Key headers: malformed, near misses of the key format, huge, repeated. */
const BAD_KEYS: (string | string[])[] = [
  '',
  ' ',
  'null',
  '0',
  '-1',
  '[]',
  "' or 1=1--",
  '%00',
  'Bearer nrp_x',
  `nrp_${'0'.repeat(40)}`,
  `nrp_${'A'.repeat(39)}`,
  `nrp_${'A'.repeat(41)}`,
  `NRP_${'A'.repeat(40)}`,
  `nrp_${'A'.repeat(39)}-`,
  `nrp_${'A'.repeat(8000)}`,
  'x'.repeat(16_000),
  [`nrp_${'A'.repeat(40)}`, `nrp_${'B'.repeat(40)}`],
  ['', ''],
];

/** Fields the dashboard's forms post (the dashboard is not in /openapi.json). */
const DASHBOARD_BODY = {
  email: 'a@example.test',
  password: 'x',
  _csrf: 'x',
  name: 'n',
  tier: 'free',
  permissions: ['ip:read'],
  features: ['telemetry_ingest'],
  ip: '192.0.2.1',
  type: 'spam',
  reason: 'r',
  expires_days: '7',
};

/** Query fields the tool pages read (they are not in /openapi.json either). */
const TOOL_PAGE_QUERY: Record<string, string[]> = {
  '/tools/ip': ['ip'],
  '/tools/domain': ['domain'],
  '/tools/blocklist': ['ip'],
};

interface Operation {
  parameters?: { in: string; name: string }[];
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, unknown>;
}

interface HostileCase {
  /** The route answers JSON envelopes (the dashboard's HTML pages do not). */
  envelope: boolean;
  method: string;
  route: string;
  url: string;
  payload?: string;
  contentType?: string;
  /** An X-API-Key header in place of the suite's valid key. */
  apiKey?: string | string[];
}

/** Every path to a leaf of a JSON value, with the first item standing for a list's items. */
function fieldPaths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [];
  if (Array.isArray(value)) {
    out.push(prefix);
    if (value.length > 0) out.push(...fieldPaths(value[0], [...prefix, 0]));
  } else if (value !== null && typeof value === 'object') {
    if (prefix.length > 0) out.push(prefix);
    for (const [k, v] of Object.entries(value)) out.push(...fieldPaths(v, [...prefix, k]));
  } else {
    out.push(prefix);
  }
  return out;
}

/** A deep copy of `base` with the value at `at` replaced (or removed when `remove`). */
function withValue(base: unknown, at: (string | number)[], value: unknown, remove = false): unknown {
  const copy = structuredClone(base) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = copy;
  for (const k of at.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
  const last = at[at.length - 1] as string | number;
  if (remove) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else {
    Object.defineProperty(node, last, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/** Fills a route's parameters with valid-looking values. */
const VALID_PARAM: Record<string, string> = {
  ip: '8.8.8.8',
  asn: '15169',
  domain: 'example.com',
  // Ids no key has: the suite's own keys are not revoked under it.
  key_id: '999999',
  id: '999999',
  feed: 'spam',
  format: 'plain',
};

function fill(route: string, override: Record<string, string> = {}): string {
  return route.replace(/:([a-z_]+)/g, (_, name: string) => override[name] ?? VALID_PARAM[name] ?? 'x');
}

/** Makes a case of one route; `payload` defaults to the route's valid body. */
type CaseAt = (url: string, payload?: string, contentType?: string) => HostileCase;

function caseMaker(method: string, route: string, envelope: boolean, body: string | undefined): CaseAt {
  return (url, payload = body, contentType) => ({
    envelope,
    method,
    route,
    url,
    ...(payload === undefined ? {} : { payload }),
    ...(contentType === undefined ? {} : { contentType }),
  });
}

/** The valid body a route's hostile bodies start from (undefined: the route reads none). */
function baseBody(method: string, route: string, op: Operation | undefined): unknown {
  const example = op?.requestBody?.content['application/json']?.example;
  if (example !== undefined && example !== null) return example;
  if (route === '/dashboard/login') return { email: DASHBOARD_BODY.email, password: DASHBOARD_BODY.password };
  if (route === '/tools/headers') return { headers: 'From: a@example.com\r\nSubject: hi\r\n' };
  if (method !== 'POST') return undefined;
  return op === undefined ? DASHBOARD_BODY : {};
}

/** Path parameters: each hostile value in each parameter. */
function pathParamCases(route: string, at: CaseAt): HostileCase[] {
  const out: HostileCase[] = [];
  const params = [...route.matchAll(/:([a-z_]+)/g)].map((m) => m[1] as string);
  for (const p of params) for (const v of PARAM_VALUES) out.push(at(fill(route, { [p]: v })));
  return out;
}

/** Query parameters: each hostile value, duplicates, a list form, and an unknown parameter. */
function queryCases(route: string, op: Operation | undefined, at: CaseAt): HostileCase[] {
  const out: HostileCase[] = [];
  const query = [
    ...(op?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
    ...(TOOL_PAGE_QUERY[route] ?? []),
  ];
  const path = fill(route);
  // The dashboard reads no query; its sign-in hashes each password (slow on purpose): one
  // hostile query each there keeps the suite fast.
  for (const q of route.startsWith('/dashboard') ? [] : [...query, 'unknown']) {
    for (const v of PARAM_VALUES) out.push(at(`${path}?${q}=${v}`));
    out.push(at(`${path}?${q}=1&${q}=2`));
    out.push(at(`${path}?${q}=-1&${q}=99999999999999999999`));
    out.push(at(`${path}?${q}[]=1&${q}[]=2`));
    out.push(at(`${path}?${q}[a]=1`));
    out.push(at(`${path}?${q}`));
    out.push(at(`${path}?${q}=${'9'.repeat(400)}`));
  }
  if (route.startsWith('/dashboard')) out.push(at(`${path}?a=1&a=2&b=%00`));
  return out;
}

/** Body: each field given each wrong JSON value, removed; each list emptied and blown up. */
function fieldCases(base: unknown, path: string, at: CaseAt): HostileCase[] {
  const out: HostileCase[] = [];
  for (const field of fieldPaths(base)) {
    if (field.length === 0) continue;
    for (const v of WRONG_JSON) out.push(at(path, JSON.stringify(withValue(base, field, v))));
    out.push(at(path, JSON.stringify(withValue(base, field, undefined, true))));
    out.push(at(path, JSON.stringify(withValue(base, field, -1e6))));
    out.push(at(path, JSON.stringify(withValue(base, field, 2 ** 64))));
  }
  for (const field of fieldPaths(base)) {
    const value = field.reduce<unknown>((n, k) => (n as Record<string | number, unknown>)[k], base);
    if (!Array.isArray(value) || field.length === 0) continue;
    const item = value[0] ?? 'x';
    // Array lengths: empty, one past each list limit of the spec (100, 500, 1000), and far past.
    const LIMITS = [100, 500, 1000];
    for (const n of [0, ...LIMITS.map((limit) => limit + 1), 20_000]) {
      out.push(
        at(
          path,
          JSON.stringify(
            withValue(
              base,
              field,
              Array.from({ length: n }, () => item),
            ),
          ),
        ),
      );
    }
  }
  return out;
}

/** An unknown field, a duplicated key, whole bodies that are not the object, wrong content types. */
function wholeBodyCases(base: unknown, body: string | undefined, path: string, at: CaseAt): HostileCase[] {
  const out: HostileCase[] = [];
  out.push(at(path, JSON.stringify({ ...(base as object), unknown_field: 1 })));
  const firstKey = Object.keys(base as object)[0];
  if (firstKey) out.push(at(path, `${body?.slice(0, -1)},"${firstKey}":12345}`));
  for (const raw of RAW_BODIES) out.push(at(path, raw));
  out.push(at(path, body, 'text/plain'));
  out.push(at(path, body, 'application/x-www-form-urlencoded'));
  out.push(at(path, 'a=1&a=2&b[]=3', 'application/x-www-form-urlencoded'));
  out.push(at(path, body, 'application/json; charset=utf-16'));
  out.push(at(path, body, 'multipart/form-data; boundary=x'));
  return out;
}

function casesFor(
  method: string,
  route: string,
  envelope: boolean,
  op: Operation | undefined,
): HostileCase[] {
  const base = baseBody(method, route, op);
  const body = base === undefined ? undefined : JSON.stringify(base);
  const at = caseMaker(method, route, envelope, body);
  const path = fill(route);
  const out = [...pathParamCases(route, at), ...queryCases(route, op, at)];
  for (const apiKey of BAD_KEYS) out.push({ ...at(path), apiKey });
  if (base === undefined) return out;
  return [...out, ...fieldCases(base, path, at), ...wholeBodyCases(base, body, path, at)];
}

type OpenApiDoc = { paths: Record<string, Record<string, Operation>> };

/** What the suite reads of an answer (light-my-request's response has these). */
interface InjectAnswer {
  statusCode: number;
  body: string;
  json(): unknown;
}

function operationOf(doc: OpenApiDoc, method: string, route: string): Operation | undefined {
  return doc.paths[route.replace(/:([a-z_]+)/g, '{$1}')]?.[method.toLowerCase()];
}

/** Minute buckets are per key: a few keys in turn keep the limits from answering everything. */
async function rotatingKeys(t: TestApp): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < 12; i++) {
    keys.push(await t.key({ permissions: [...ALL_PERMISSIONS, 'admin'], features: ['telemetry_ingest'] }));
  }
  return keys;
}

/** The cases of every route of the route table. */
function everyCase(t: TestApp, doc: OpenApiDoc): HostileCase[] {
  const all: HostileCase[] = [];
  for (const r of t.app.http.routeList) {
    const op = operationOf(doc, r.method, r.url);
    all.push(...casesFor(r.method, r.url, r.envelope && !r.url.startsWith('/dashboard'), op));
  }
  return all;
}

/** Sends case number `n` from a client address of its own, with `key` unless the case has one. */
function send(t: TestApp, c: HostileCase, key: string, n: number): Promise<InjectAnswer> {
  return t.app.http.inject({
    method: c.method as 'GET',
    url: c.url,
    remoteAddress: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
    headers: {
      'x-api-key': c.apiKey ?? key,
      ...(c.payload === undefined ? {} : { 'content-type': c.contentType ?? 'application/json' }),
    },
    ...(c.payload === undefined ? {} : { payload: c.payload }),
  });
}

/** What is wrong with a 4xx answer of an envelope route (undefined: nothing). */
function envelopeProblem(
  doc: OpenApiDoc,
  c: HostileCase,
  res: InjectAnswer,
  what: string,
): string | undefined {
  const status = res.statusCode;
  let parsed: { data?: { error?: unknown; code?: unknown }; meta?: { request_id?: unknown } };
  try {
    parsed = res.json() as typeof parsed;
  } catch {
    return `${status} without the JSON envelope: ${what}: ${res.body.slice(0, 100)}`;
  }
  const code = parsed.data?.code;
  const row = typeof code === 'string' ? ERRORS[code as keyof typeof ERRORS] : undefined;
  if (
    !row ||
    row.status !== status ||
    typeof parsed.data?.error !== 'string' ||
    typeof parsed.meta?.request_id !== 'string'
  ) {
    return `${status} not the envelope: ${what}: ${res.body.slice(0, 150)}`;
  }
  const op = operationOf(doc, c.method, c.route);
  const documented =
    code === 'NOT_FOUND' || code === 'METHOD_NOT_ALLOWED' || op === undefined
      ? true
      : JSON.stringify(op.responses[String(status)] ?? {}).includes(`"${code}"`);
  return documented ? undefined : `${status} ${code} not documented for ${c.method} ${c.route}: ${what}`;
}

/** What is wrong with the answer to a case (undefined: nothing). */
function answerProblem(doc: OpenApiDoc, c: HostileCase, res: InjectAnswer): string | undefined {
  const status = res.statusCode;
  const what = `${c.method} ${c.url.slice(0, 120)}${c.payload === undefined ? '' : ` ${c.payload.slice(0, 80)}`}`;
  if (status >= 500) return `${status} ${what}: ${res.body.slice(0, 200)}`;
  if (res.body.includes('    at ') || res.body.includes('node_modules')) return `stack trace: ${what}`;
  // 2xx/3xx: input the route tolerates; the dashboard's pages answer HTML, not the envelope.
  if (status < 400 || !c.envelope) return undefined;
  return envelopeProblem(doc, c, res, what);
}

/** Sends every case in turn: the failures, and the count of answers by status. */
async function sendAll(
  t: TestApp,
  doc: OpenApiDoc,
  all: HostileCase[],
  keys: string[],
): Promise<{ failures: string[]; tally: Map<string, number> }> {
  const failures: string[] = [];
  const tally = new Map<string, number>();
  let n = 0;
  for (const c of all) {
    n += 1;
    const res = await send(t, c, keys[n % keys.length] as string, n);
    tally.set(String(res.statusCode), (tally.get(String(res.statusCode)) ?? 0) + 1);
    const problem = answerProblem(doc, c, res);
    if (problem !== undefined) failures.push(problem);
  }
  return { failures, tally };
}

/** One example per kind of failure (status, code, route) keeps the report readable. */
function oneOfEachKind(failures: string[]): string[] {
  const kinds = new Map<string, string>();
  for (const f of failures) {
    const kind = f.replace(/\?.*$/, '').split(' ').slice(0, 6).join(' ');
    if (!kinds.has(kind)) kinds.set(kind, f);
  }
  return [...kinds.values()];
}

describe('hostile input on every route', () => {
  let handle: TestStoreHandle;
  let t: TestApp;
  let zone: ZoneServer;

  beforeAll(async () => {
    handle = await createTestStore('sqlite');
    await buildDataset({ dataDir: handle.dataDir, clock: systemClock, npmDir: datasetFixture('npm-a') });
    // Domain checks read an empty zone (every name answered as absent); with no resolver
    // answering they answer 503 DNS_UNAVAILABLE (issue 31), which is not hostile input's doing.
    zone = await startZoneServer({});
    t = await createTestApp('sqlite', { handle, config: { dnsServers: zone.servers } });
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await zone?.close();
    await handle?.cleanup();
  });

  it('a query number that coerces to Infinity is 400 INVALID_PARAMETER, not 500 (found by this suite)', async () => {
    const key = await t.key({ permissions: [...ALL_PERMISSIONS, 'admin'] });
    for (const q of ['limit=Infinity', 'limit=1e309', 'offset=-1e309', `offset=${'9'.repeat(400)}`]) {
      const res = await t.app.http.inject({
        url: `/v1/blocklist/recent?${q}`,
        headers: { 'x-api-key': key },
      });
      expect(res.statusCode, q).toBe(400);
      expect(res.json().data.code, q).toBe('INVALID_PARAMETER');
    }
    const asn = await t.app.http.inject({
      url: '/v1/asn/15169?prefix_limit=Infinity',
      headers: { 'x-api-key': key },
    });
    expect(asn.statusCode).toBe(400);
  });

  it('answers every generated case with a documented 4xx envelope (or tolerates it), never a 5xx', async () => {
    const doc = (await t.app.http.inject({ url: '/openapi.json' })).json() as OpenApiDoc;
    const keys = await rotatingKeys(t);
    const all = everyCase(t, doc);
    const { failures, tally } = await sendAll(t, doc, all, keys);
    const api = all.filter((c) => c.envelope).length;
    process.stdout.write(
      `hostile-input suite: ${all.length} cases over ${t.app.http.routeList.length} routes (${api} on the JSON API, ${all.length - api} on the dashboard and tool pages); answers by status ${JSON.stringify(Object.fromEntries(tally))}\n`,
    );
    expect(api).toBeGreaterThanOrEqual(5000);
    expect(oneOfEachKind(failures)).toEqual([]);
  }, 600_000);
});
