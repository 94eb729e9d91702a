/**
 * The per-domain report views over HTTP on both stores (issue #38 item 2): every sample of
 * ../shared/data/email/dmarc and a generated set of aggregate reports uploaded, then each view's
 * numbers checked against sums computed here from the parsed reports, the intel and reputation
 * of each source against the IP and reputation routes, the CSV read back with csv-parse, hostile
 * parameters answered with the envelope, and another owner seeing none of it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { createIntelTestApp, type IntelTestApp } from '../../../test/helpers/intel-app.ts';
import { sharedDataPath } from '../../../test/helpers/shared-data.ts';
import { STORE_KINDS, skipStore } from '../../../test/helpers/stores.ts';
import { isPublicIp, parseIp } from '../../core/ip.ts';
import { readReport } from '../../reports/read.ts';
import type { ParsedReport } from '../../reports/types.ts';

const SAMPLES = sharedDataPath('email', 'dmarc');
const DAY = 86_400_000;
const GEN = 'views.example';
const isPublic = (ip: string) => isPublicIp(parseIp(ip) as NonNullable<ReturnType<typeof parseIp>>);

interface Row {
  ip: string;
  count: number;
  disposition: string;
  dkim: string;
  spf: string;
  reasons?: string[];
}

// The parser reads no entities (the ingest keeps text as written): names here need none.
const esc = (s: string) => s.replace(/[&<]/g, '');

function aggregateXml(org: string, id: string, begin: number, rows: Row[]): string {
  const records = rows.map(
    (r) => `<record><row><source_ip>${r.ip}</source_ip><count>${r.count}</count><policy_evaluated>
<disposition>${r.disposition}</disposition><dkim>${r.dkim}</dkim><spf>${r.spf}</spf>
${(r.reasons ?? []).map((t) => `<reason><type>${t}</type><comment>c</comment></reason>`).join('')}
</policy_evaluated></row><identifiers><header_from>${GEN}</header_from></identifiers>
<auth_results><spf><domain>${GEN}</domain><result>${r.spf}</result></spf></auth_results></record>`,
  );
  return `<?xml version="1.0"?><feedback><report_metadata><org_name>${esc(org)}</org_name>
<email>dmarc@reporter.example</email><report_id>${id}</report_id><date_range><begin>${begin / 1000}</begin>
<end>${begin / 1000 + 86_399}</end></date_range></report_metadata><policy_published><domain>${GEN}</domain>
<adkim>r</adkim><aspf>r</aspf><p>${begin % 2 ? 'reject' : 'quarantine'}</p><pct>100</pct></policy_published>
${records.join('\n')}</feedback>`;
}

/** Aggregate reports for views.example, one a day from 2026-05-01 to 2026-06-10, from a seeded generator. */
function generated(): string[] {
  let seed = 38;
  const next = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return Math.floor(seed / 65_536) % n;
  };
  const ips = ['8.8.8.8', '8.8.8.9', '1.0.0.1', '100.0.0.5', '177.0.0.7', '203.0.113.9', '10.1.2.3'];
  const orgs = ['Report, "Quoted" Org', '=HYPERLINK("http://x")', 'plain.example'];
  const dispositions = ['none', 'none', 'quarantine', 'reject'];
  const reasons = [[], [], ['forwarded'], ['local_policy', 'mailing_list'], ['forwarded', 'forwarded']];
  const out: string[] = [];
  for (let d = 0; d < 41; d++) {
    const begin = Date.UTC(2026, 4, 1) + d * DAY + next(3) * 3_600_000;
    const rows = Array.from({ length: 1 + next(4) }, () => ({
      ip: ips[next(ips.length)] as string,
      count: 1 + next(50),
      disposition: dispositions[next(4)] as string,
      dkim: next(3) ? 'pass' : 'fail',
      spf: next(2) ? 'pass' : 'fail',
      reasons: reasons[next(reasons.length)] as string[],
    }));
    out.push(aggregateXml(orgs[d % 3] as string, `gen-${d}`, begin, rows));
  }
  return out;
}

function sampleBodies(): Buffer[] {
  return fs
    .readdirSync(SAMPLES)
    .flatMap((dir) => fs.readdirSync(path.join(SAMPLES, dir)).map((f) => path.join(SAMPLES, dir, f)))
    .sort()
    .map((f) => fs.readFileSync(f));
}

/** The reports as the parser reads them, once each (the store's dedup key), refused ones left out. */
async function parsedAll(bodies: Buffer[]): Promise<ParsedReport[]> {
  const seen = new Map<string, ParsedReport>();
  for (const body of bodies) {
    const read = await readReport(body, 1 << 24).catch(() => null);
    if (!read) continue;
    const r = read.report;
    const key = JSON.stringify([r.kind, r.orgName, r.reportId]);
    if (!seen.has(key)) seen.set(key, r);
  }
  return [...seen.values()];
}

/** What a summary should say, computed from the parsed reports. */
function expectedSummary(reports: ParsedReport[], domain: string, from: string, to: string) {
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`) + DAY;
  const inPeriod = reports.filter(
    (r) =>
      r.kind === 'aggregate' &&
      r.domain === domain &&
      (r.begin as number) >= start &&
      (r.begin as number) < end,
  );
  const rows = inPeriod.flatMap((r) =>
    r.records.map((rec) => ({ ...rec, begin: r.begin as number, org: r.orgName })),
  );
  const sum = (f: (x: (typeof rows)[number]) => boolean) => rows.filter(f).reduce((s, x) => s + x.count, 0);
  const messages = sum(() => true);
  const dmarcPass = sum((x) => x.dkim === 'pass' || x.spf === 'pass');
  const overrides = new Map<string, { rows: number; messages: number }>();
  for (const x of rows)
    for (const type of new Set(x.reasons.map((r) => r.type))) {
      const o = overrides.get(type) ?? { rows: 0, messages: 0 };
      overrides.set(type, { rows: o.rows + 1, messages: o.messages + x.count });
    }
  const daily = new Map<string, { messages: number; dmarc_pass: number }>();
  for (const x of rows) {
    const day = new Date(x.begin).toISOString().slice(0, 10);
    const p = daily.get(day) ?? { messages: 0, dmarc_pass: 0 };
    daily.set(day, {
      messages: p.messages + x.count,
      dmarc_pass: p.dmarc_pass + (x.dkim === 'pass' || x.spf === 'pass' ? x.count : 0),
    });
  }
  return {
    reports: inPeriod.length,
    messages,
    dmarc_pass: dmarcPass,
    dmarc_fail: messages - dmarcPass,
    spf_aligned_pass: sum((x) => x.spf === 'pass'),
    dkim_aligned_pass: sum((x) => x.dkim === 'pass'),
    dispositions: Object.fromEntries(
      ['none', 'quarantine', 'reject', 'pass'].map((d) => [d, sum((x) => x.disposition === d)]),
    ),
    overrides: Object.fromEntries(overrides),
    reporters: [...new Set(inPeriod.map((r) => r.orgName))].sort(),
    daily: Object.fromEntries(daily),
    rows,
  };
}

function messagesByIp(rows: { source_ip: string; count: number }[]): Map<string, number> {
  const byIp = new Map<string, number>();
  for (const x of rows) byIp.set(x.source_ip, (byIp.get(x.source_ip) ?? 0) + x.count);
  return byIp;
}

describe.each(STORE_KINDS)('email report views (%s)', (kind) => {
  const skip = skipStore(kind);
  let t: IntelTestApp;
  let key: string;
  let otherKey: string;
  let reports: ParsedReport[];

  const get = (url: string, k = key) =>
    t.app.http.inject({ method: 'GET', url, headers: { 'x-api-key': k } });
  const data = async (url: string, k = key) => {
    const r = await get(url, k);
    expect(r.statusCode, `${url}: ${r.body}`).toBe(200);
    return r.json().data;
  };

  beforeAll(async () => {
    if (skip) return;
    t = await createIntelTestApp(kind);
    key = await t.key({ permissions: ['email:read', 'ip:read'] });
    otherKey = await t.key({ permissions: ['email:read'], ownerId: await t.user() });
    const bodies = [...sampleBodies(), ...generated().map((x) => Buffer.from(x))];
    for (const body of bodies)
      await t.app.http.inject({
        method: 'POST',
        url: '/v1/email/reports',
        headers: { 'x-api-key': key, 'content-type': 'application/octet-stream' },
        payload: body,
      });
    reports = await parsedAll(bodies);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it.skipIf(skip)('lists the domains with their counts and pass rates', async () => {
    const answer = await data('/v1/email/reports/domains?limit=1000');
    const domains = [...new Set(reports.flatMap((r) => (r.domain ? [r.domain] : [])))].sort();
    expect(answer.domains.map((d: { domain: string }) => d.domain)).toEqual(domains);
    expect(answer.total).toBe(domains.length);
    for (const d of answer.domains) {
      const mine = reports.filter((r) => r.domain === d.domain);
      const rows = mine.filter((r) => r.kind === 'aggregate').flatMap((r) => r.records);
      const messages = rows.reduce((s, x) => s + x.count, 0);
      const pass = rows.filter((x) => x.dkim === 'pass' || x.spf === 'pass').reduce((s, x) => s + x.count, 0);
      expect(d, d.domain).toMatchObject({
        reports: mine.length,
        aggregate_reports: mine.filter((r) => r.kind === 'aggregate').length,
        failure_reports: mine.filter((r) => r.kind === 'failure').length,
        tls_reports: mine.filter((r) => r.kind === 'tls').length,
        messages,
        dmarc_pass: pass,
        dmarc_pass_rate: messages ? Math.round((pass / messages) * 10_000) / 10_000 : null,
      });
    }
    const page = await data('/v1/email/reports/domains?limit=2&offset=1');
    expect(page.domains.map((d: { domain: string }) => d.domain)).toEqual(domains.slice(1, 3));
  });

  it.skipIf(skip)('sums a summary as the parsed reports do, over explicit and default periods', async () => {
    const cases: [string, string, string, string][] = [
      ['example.com', '2018-01-01', '2018-12-31', '?from=2018-01-01&to=2018-12-31'],
      ['example.com', '2023-11-01', '2024-10-31', '?from=2023-11-01&to=2024-10-31'],
      // Default: the 30 days ending on the latest report's day (2026-06-10).
      [GEN, '2026-05-12', '2026-06-10', ''],
      [GEN, '2026-05-01', '2026-06-10', '?from=2026-05-01'],
      [GEN, '2026-05-03', '2026-06-01', '?to=2026-06-01'],
    ];
    for (const [domain, from, to, query] of cases) {
      const got = await data(`/v1/email/reports/domains/${domain}/summary${query}`);
      const want = expectedSummary(reports, domain, from, to);
      expect(got.period, query).toEqual({ from, to });
      expect(got, `${domain}${query}`).toMatchObject({
        reports: want.reports,
        messages: want.messages,
        dmarc_pass: want.dmarc_pass,
        dmarc_fail: want.dmarc_fail,
        spf_aligned_pass: want.spf_aligned_pass,
        dkim_aligned_pass: want.dkim_aligned_pass,
        dispositions: want.dispositions,
      });
      expect(
        Object.fromEntries(
          got.overrides.map((o: { type: string; rows: number; messages: number }) => [
            o.type,
            { rows: o.rows, messages: o.messages },
          ]),
        ),
      ).toEqual(want.overrides);
      expect(got.reporters.map((r: { org_name: string }) => r.org_name)).toEqual(want.reporters);
      expect(got.daily).toHaveLength((Date.parse(to) - Date.parse(from)) / DAY + 1);
      const days = got.daily.filter((p: { messages: number }) => p.messages > 0);
      expect(
        Object.fromEntries(
          days.map((p: { date: string; messages: number; dmarc_pass: number }) => [
            p.date,
            { messages: p.messages, dmarc_pass: p.dmarc_pass },
          ]),
        ),
      ).toEqual(want.daily);
      expect(got.policies.reduce((s: number, p: { reports: number }) => s + p.reports, 0)).toBe(want.reports);
    }
    const bis = await data('/v1/email/reports/domains/EXAMPLE.COM./summary?from=2023-11-14&to=2023-11-14');
    expect(bis.policies).toEqual([
      expect.objectContaining({ p: 'reject', sp: 'quarantine', np: 'reject', testing: 'y', reports: 1 }),
    ]);
  });

  /** Each source's intel and reputation as GET /v1/ip/{ip} and the reputation batch answer them. */
  async function expectIntelOf(sources: { ip: string; [k: string]: unknown }[]): Promise<void> {
    const reputation = await t.app.http.inject({
      method: 'POST',
      url: '/v1/email/reputation/batch',
      payload: { ips: sources.map((s) => s.ip).filter(isPublic) },
    });
    const scores = new Map(reputation.json().data.map((r: { ip: string; score: number }) => [r.ip, r.score]));
    for (const s of sources) {
      const ip = await get(`/v1/ip/${s.ip}`);
      const a = ip.statusCode === 200 ? ip.json().data : null;
      expect([s.asn, s.asn_name, s.country, s.threat_score], s.ip).toEqual([
        a?.asn ?? null,
        a?.asn_name ?? null,
        a?.country ?? null,
        a?.threat.score ?? null,
      ]);
      expect(s.reputation_score, s.ip).toBe(isPublic(s.ip) ? scores.get(s.ip) : null);
    }
  }

  const PERIOD = 'from=2026-05-01&to=2026-06-10';

  it.skipIf(skip)('lists sources by IP with the IP and reputation routes’ answers, paged', async () => {
    const want = expectedSummary(reports, GEN, '2026-05-01', '2026-06-10');
    const order = [...messagesByIp(want.rows)].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    const all = await data(`/v1/email/reports/domains/${GEN}/sources?${PERIOD}&limit=500`);
    expect(all.total).toBe(order.length);
    expect(all.sources.map((s: { ip: string; messages: number }) => [s.ip, s.messages])).toEqual(order);
    for (const s of all.sources) {
      const rows = want.rows.filter((x) => x.source_ip === s.ip);
      const pass = rows.filter((x) => x.dkim === 'pass' || x.spf === 'pass');
      expect([s.dmarc_pass, s.reporters], s.ip).toEqual([
        pass.reduce((a, x) => a + x.count, 0),
        [...new Set(rows.map((x) => x.org))].sort(),
      ]);
    }
    await expectIntelOf(all.sources);
    expect(all.sources.find((s: { ip: string }) => s.ip === '8.8.8.8')).toMatchObject({
      asn: 15169,
      country: 'US',
    });
    const page = await data(`/v1/email/reports/domains/${GEN}/sources?${PERIOD}&limit=2&offset=2`);
    expect(page.sources.map((s: { ip: string }) => s.ip)).toEqual(order.slice(2, 4).map(([ip]) => ip));
    expect(page.total).toBe(order.length);
  });

  it.skipIf(skip)('groups sources by organisation (ASN), addresses with none under null', async () => {
    const want = expectedSummary(reports, GEN, '2026-05-01', '2026-06-10');
    const byIp = messagesByIp(want.rows);
    const orgs = await data(`/v1/email/reports/domains/${GEN}/sources?${PERIOD}&group=organization`);
    const sum = (k: 'messages' | 'ip_count') =>
      orgs.sources.reduce((s: number, o: Record<string, number>) => s + (o[k] ?? 0), 0);
    expect([sum('messages'), sum('ip_count'), orgs.total]).toEqual([
      want.messages,
      byIp.size,
      orgs.sources.length,
    ]);
    const messages = orgs.sources.map((o: { messages: number }) => o.messages);
    expect(messages).toEqual([...messages].sort((a, b) => b - a));
    expect(orgs.sources.find((o: { asn: number | null }) => o.asn === 15169)).toMatchObject({
      asn_name: 'Google LLC',
      ip_count: 2,
      messages: (byIp.get('8.8.8.8') ?? 0) + (byIp.get('8.8.8.9') ?? 0),
      countries: ['US'],
    });
    // 203.0.113.9 (documentation range) and 10.1.2.3 (private): no ASN.
    expect(orgs.sources.find((o: { asn: number | null }) => o.asn === null)).toMatchObject({
      ip_count: 2,
      messages: (byIp.get('203.0.113.9') ?? 0) + (byIp.get('10.1.2.3') ?? 0),
      reputation_score_min: null,
    });
    const second = await data(
      `/v1/email/reports/domains/${GEN}/sources?${PERIOD}&group=organization&limit=1&offset=1`,
    );
    expect(second.sources).toEqual([orgs.sources[1]]);
  });

  it.skipIf(skip)('exports the same rows as CSV, formula-safe, read back by csv-parse', async () => {
    const q = `from=2026-05-01&to=2026-06-10&limit=500`;
    const json = await data(`/v1/email/reports/domains/${GEN}/sources?${q}`);
    const r = await get(`/v1/email/reports/domains/${GEN}/sources.csv?${q}`);
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/csv/);
    expect(r.headers['content-disposition']).toBe(
      `attachment; filename="${GEN}-sources-2026-05-01-2026-06-10.csv"`,
    );
    const rows = parse(r.body, { columns: true }) as Record<string, string>[];
    expect(rows.map((x) => [x.ip, Number(x.messages), Number(x.dmarc_pass), x.asn_name])).toEqual(
      json.sources.map((s: { ip: string; messages: number; dmarc_pass: number; asn_name: string | null }) => [
        s.ip,
        s.messages,
        s.dmarc_pass,
        s.asn_name ?? '',
      ]),
    );
    const reporters = rows.flatMap((x) => (x.reporters ?? '').replace(/^'/, '').split('; '));
    expect(reporters).toContain('=HYPERLINK("http://x")');
    expect(reporters).toContain('Report, "Quoted" Org');
    // No cell a spreadsheet would read as a formula; the one that started with = got an apostrophe.
    const cells = (parse(r.body) as string[][]).flat();
    expect(cells.filter((x) => /^[=+\-@]/.test(x))).toEqual([]);
    expect(cells.some((x) => x.startsWith("'=HYPERLINK"))).toBe(true);
    const orgs = await get(`/v1/email/reports/domains/${GEN}/sources.csv?${q}&group=organization`);
    const orgRows = parse(orgs.body, { columns: true }) as Record<string, string>[];
    expect(orgRows.find((x) => x.asn === '13335')?.asn_name).toBe('Cloudflare, Inc.');
  });

  it.skipIf(skip)('lists failure samples and TLS failures of the domain', async () => {
    const failures = await data('/v1/email/reports/domains/example.com/failures');
    const want = reports.filter((r) => r.kind === 'failure' && r.domain === 'example.com');
    expect(failures.total).toBe(want.length);
    expect(failures.failures.map((f: { source_ip: string }) => f.source_ip).sort()).toEqual(
      want.map((r) => r.failures[0]?.source_ip).sort(),
    );
    const tls = await data('/v1/email/reports/domains/company-y.example/tls?from=2016-04-01&to=2016-04-01');
    expect(tls).toMatchObject({ reports: 1, successful_sessions: 5326, failed_sessions: 303 });
    expect(
      tls.failures.map(
        (f: { receiving_mx_hostname: string; result_type: string; failed_sessions: number }) => [
          f.receiving_mx_hostname,
          f.result_type,
          f.failed_sessions,
        ],
      ),
    ).toEqual([
      ['mx2.mail.company-y.example', 'starttls-not-supported', 200],
      ['mx1.mail.company-y.example', 'certificate-expired', 100],
      ['mx-backup.mail.company-y.example', 'validation-failure', 3],
    ]);
    // Default period: the 30 days ending on the latest TLS report's day.
    const tlsDays = reports
      .filter((r) => r.kind === 'tls' && r.tlsPolicies.some((p) => p.policy_domain === 'example.com'))
      .map((r) => new Date(r.begin as number).toISOString().slice(0, 10))
      .sort();
    const mine = await data('/v1/email/reports/domains/example.com/tls');
    expect(mine.period.to).toBe(tlsDays.at(-1));
    const jan = await data('/v1/email/reports/domains/example.com/tls?to=2024-01-09');
    expect(jan.failures).toEqual([
      expect.objectContaining({
        receiving_mx_hostname: 'example.com',
        result_type: 'validation-failure',
        failed_sessions: 3,
        receiving_ips: ['173.212.201.41'],
      }),
    ]);
  });

  it.skipIf(skip)('answers hostile parameters with the error envelope', async () => {
    const base = `/v1/email/reports/domains/${GEN}`;
    const cases: [string, number, string, RegExp?][] = [
      [`${base}/summary?from=2026-02-30`, 400, 'INVALID_PARAMETER', /from must be a date as YYYY-MM-DD/],
      [`${base}/summary?from=2026-1-1`, 400, 'INVALID_PARAMETER'],
      [`${base}/summary?to=${encodeURIComponent("2026-01-01' OR 1=1--")}`, 400, 'INVALID_PARAMETER'],
      [
        `${base}/summary?from=2026-06-01&to=2026-05-01`,
        400,
        'INVALID_PARAMETER',
        /from \(2026-06-01\) is after to/,
      ],
      [`${base}/summary?from=2024-01-01&to=2025-12-31`, 400, 'INVALID_PARAMETER', /longer than 366 days/],
      [`${base}/summary?from=1969-12-31`, 400, 'INVALID_PARAMETER'],
      [`${base}/sources?limit=1000000`, 400, 'INVALID_PARAMETER'],
      [`${base}/sources?limit=0`, 400, 'INVALID_PARAMETER'],
      [`${base}/sources?group=asn`, 400, 'INVALID_PARAMETER'],
      [`${base}/sources.csv?offset=-1`, 400, 'INVALID_PARAMETER'],
      [`/v1/email/reports/domains/${encodeURIComponent("x' or 1=1--")}/summary`, 400, 'INVALID_DOMAIN'],
      ['/v1/email/reports/domains/%25/sources', 400, 'INVALID_DOMAIN'],
      ['/v1/email/reports/domains/a..b/tls', 400, 'INVALID_DOMAIN'],
      [`/v1/email/reports/domains/${'a'.repeat(300)}/failures`, 400, 'INVALID_PARAMETER'],
      [`/v1/email/reports/domains/${'a'.repeat(64)}.com/failures`, 400, 'INVALID_DOMAIN'],
      ['/v1/email/reports/domains/%E2%80%AEexample.com/summary', 400, 'INVALID_DOMAIN'],
    ];
    for (const [url, status, code, message] of cases) {
      const r = await get(url);
      expect([r.statusCode, r.json().data.code], url).toEqual([status, code]);
      if (message) expect(r.json().data.error, url).toMatch(message);
    }
    // 366 days is the longest period; an unknown domain is an empty answer, not 404.
    const empty = await data(
      '/v1/email/reports/domains/nothing.example/summary?from=2025-01-01&to=2026-01-01',
    );
    expect(empty).toMatchObject({
      reports: 0,
      messages: 0,
      dmarc_pass_rate: null,
      overrides: [],
      reporters: [],
    });
    expect(empty.daily).toHaveLength(366);
    const none = await data('/v1/email/reports/domains/nothing.example/sources?group=organization');
    expect([none.sources, none.total]).toEqual([[], 0]);
  });

  it.skipIf(skip)('keeps owners apart', async () => {
    expect((await data('/v1/email/reports/domains', otherKey)).total).toBe(0);
    const summary = await data(
      `/v1/email/reports/domains/${GEN}/summary?from=2026-05-01&to=2026-06-10`,
      otherKey,
    );
    expect([summary.reports, summary.messages, summary.reporters]).toEqual([0, 0, []]);
    const sources = await data(
      `/v1/email/reports/domains/${GEN}/sources?from=2026-05-01&to=2026-06-10`,
      otherKey,
    );
    expect(sources.total).toBe(0);
    expect((await data('/v1/email/reports/domains/example.com/failures', otherKey)).total).toBe(0);
    expect(
      (await data('/v1/email/reports/domains/example.com/tls?from=2024-01-01&to=2024-01-31', otherKey))
        .reports,
    ).toBe(0);
    const csv = await get(
      `/v1/email/reports/domains/${GEN}/sources.csv?from=2026-05-01&to=2026-06-10`,
      otherKey,
    );
    expect(csv.body.split('\r\n').filter(Boolean)).toHaveLength(1);
  });
});

describe('email report sources with no dataset loaded', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers the report numbers with the intel fields null and no dataset_version', async () => {
    const key = await t.key({ permissions: ['email:read'] });
    const body = fs.readFileSync(
      path.join(SAMPLES, 'aggregate', 'rfc9990-example.net_example.com_1700000000_1700086399.xml'),
    );
    const up = await t.app.http.inject({
      method: 'POST',
      url: '/v1/email/reports',
      headers: { 'x-api-key': key, 'content-type': 'application/xml' },
      payload: body,
    });
    expect(up.statusCode).toBe(201);
    const r = await t.app.http.inject({
      method: 'GET',
      url: '/v1/email/reports/domains/example.com/sources',
      headers: { 'x-api-key': key },
    });
    expect(r.statusCode).toBe(200);
    expect(r.json().meta.dataset_version).toBeUndefined();
    expect(r.json().data.period).toEqual({ from: '2023-10-16', to: '2023-11-14' });
    expect(
      r
        .json()
        .data.sources.map((s: { ip: string; messages: number; asn: null; threat_score: null }) => [
          s.ip,
          s.messages,
          s.asn,
          s.threat_score,
        ]),
    ).toEqual([
      ['198.51.100.1', 5, null, null],
      ['203.0.113.10', 2, null, null],
    ]);
  });
});
