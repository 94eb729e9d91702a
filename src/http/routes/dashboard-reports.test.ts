/**
 * Dashboard → Reports over HTTP on both stores (issue #38 item 2): signed in, real samples of
 * ../shared/data/email/dmarc uploaded through the form (multipart), the outcome shown (stored,
 * duplicate, rejected with its reason), the domain page's numbers equal to the API's summary, the
 * CSV equal to the API's, another user seeing none of it, forged and malformed posts refused, bad
 * dates and domains answered with a page that says what is wrong, hostile report text escaped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { sharedDataPath } from '../../../test/helpers/shared-data.ts';
import { STORE_KINDS, skipStore } from '../../../test/helpers/stores.ts';
import { esc } from '../../web/html.ts';

const SAMPLES = sharedDataPath('email', 'dmarc');
const GZIP = `${SAMPLES}/aggregate/fastmail.com_example.com_1516060800_1516147199_102675056.xml.gz`;
const INVALID = `${SAMPLES}/aggregate/invalid_xml.xml`;
const samplePaths = () =>
  fs
    .readdirSync(SAMPLES)
    .flatMap((dir) => fs.readdirSync(path.join(SAMPLES, dir)).map((f) => path.join(SAMPLES, dir, f)))
    .sort();
const BOUNDARY = '----netrepTestBoundary7MA4YWxkTrZu0gW';
const HOSTILE_ORG = '<script>alert("org")</script>\'"&x'.padEnd(600, 'Z');

function hostileReport(): string {
  return `<?xml version="1.0"?><feedback><report_metadata><org_name>${HOSTILE_ORG.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</org_name>
<email>d@r.example</email><report_id>hostile-1</report_id><date_range><begin>1780000000</begin><end>1780086399</end></date_range>
</report_metadata><policy_published><domain>hostile.example</domain><p>none</p></policy_published>
<record><row><source_ip>192.0.2.77</source_ip><count>3</count><policy_evaluated><disposition>none</disposition>
<dkim>fail</dkim><spf>fail</spf><reason><type>&lt;img src=x onerror=alert(1)&gt;</type></reason></policy_evaluated></row>
<identifiers><header_from>hostile.example</header_from></identifiers><auth_results><spf><domain>hostile.example</domain>
<result>fail</result></spf></auth_results></record></feedback>`;
}

/** A multipart/form-data body as a browser posts the upload form. */
function multipart(fields: Record<string, string>, file?: { name: string; bytes: Buffer; type?: string }) {
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields))
    chunks.push(
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  if (file)
    chunks.push(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="report"; filename="${file.name}"\r\nContent-Type: ${file.type ?? 'application/octet-stream'}\r\n\r\n`,
      ),
      file.bytes,
      Buffer.from('\r\n'),
    );
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

describe.each(STORE_KINDS)('dashboard reports (%s)', (kind) => {
  const skip = skipStore(kind);
  let t: TestApp;
  let key: string;
  const users: Record<'a' | 'b', { cookie: string; csrf: string }> = {
    a: { cookie: '', csrf: '' },
    b: { cookie: '', csrf: '' },
  };

  const get = (url: string, who: 'a' | 'b' = 'a') =>
    t.app.http.inject({ method: 'GET', url, headers: { cookie: users[who].cookie } });
  const upload = (body: Buffer, who: 'a' | 'b' = 'a', type = `multipart/form-data; boundary=${BOUNDARY}`) =>
    t.app.http.inject({
      method: 'POST',
      url: '/dashboard/reports/upload',
      headers: { cookie: users[who].cookie, 'content-type': type },
      payload: body,
    });
  const uploadFile = (path: string, who: 'a' | 'b' = 'a') =>
    upload(multipart({ _csrf: users[who].csrf }, { name: path, bytes: fs.readFileSync(path) }), who);
  const api = async (url: string) => {
    const r = await t.app.http.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    expect(r.statusCode, r.body).toBe(200);
    return r;
  };

  beforeAll(async () => {
    if (skip) return;
    t = await createTestApp(kind);
    for (const who of ['a', 'b'] as const) {
      const email = `reports-${who}@example.test`;
      const password = `password-of-${who}-1`;
      const { user } = await t.app.services.accounts.createUser({ email, password, role: 'member' });
      if (who === 'a') key = await t.key({ permissions: ['email:read'], ownerId: user.id });
      const login = await t.app.http.inject({
        method: 'POST',
        url: '/dashboard/login',
        remoteAddress: `10.38.0.${who === 'a' ? 1 : 2}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ email, password }).toString(),
      });
      expect(login.statusCode).toBe(303);
      const cookie = String(login.headers['set-cookie']).split(';')[0] as string;
      const page = await t.app.http.inject({ url: '/dashboard/reports', headers: { cookie } });
      users[who] = { cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '' };
      expect(users[who].csrf).not.toBe('');
    }
  });
  afterAll(async () => t?.close());

  it.skipIf(skip)('uploads through the form: stored, duplicate, rejected with the reason', async () => {
    const first = await uploadFile(GZIP);
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toMatch(/^\/dashboard\/reports\?stored=\d+$/);
    const shown = await get(String(first.headers.location));
    expect(shown.body).toContain('Stored: aggregate report 102675056 from FastMail Pty Ltd for indemed.com');
    const again = await uploadFile(GZIP);
    expect(again.headers.location).toMatch(/^\/dashboard\/reports\?duplicate=\d+$/);
    expect((await get(String(again.headers.location))).body).toContain('Already stored: aggregate report');
    // A quoted boundary and a preamble before the first part read the same.
    const quoted = await upload(
      Buffer.concat([
        Buffer.from('preamble\r\n'),
        multipart(
          { _csrf: users.a.csrf },
          { name: 'g.gz', bytes: fs.readFileSync(GZIP), type: 'application/gzip' },
        ),
      ]),
      'a',
      `multipart/form-data; boundary="${BOUNDARY}"`,
    );
    expect(quoted.headers.location).toBe(again.headers.location);

    const bad = await uploadFile(INVALID);
    expect(bad.headers.location).toMatch(/^\/dashboard\/reports\?rejected=\d+$/);
    const { rejected } = (await api('/v1/email/reports/rejected')).json().data;
    expect(rejected).toHaveLength(1);
    const page = await get(String(bad.headers.location));
    expect(page.body).toContain('role="alert">Rejected: ');
    expect(page.body).toContain(esc(rejected[0].reason));
    const list = await get('/dashboard/reports/rejected');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(
      `<td data-label="Upload" style="overflow-wrap:anywhere">${rejected[0].id}</td>`,
    );

    // Every other sample through the form: each one stored, a duplicate or rejected, as the API would.
    for (const file of samplePaths()) {
      const r = await uploadFile(file);
      expect([file, r.statusCode]).toEqual([file, 303]);
      expect(String(r.headers.location), file).toMatch(
        /^\/dashboard\/reports\?(stored|duplicate|rejected)=\d+$/,
      );
    }
    expect((await api('/v1/email/reports/rejected')).json().data.total).toBeGreaterThan(1);
  });

  /** A domain page (and its CSV) against the API's summary, sources and CSV for the same query. */
  async function samePage(domain: string, query: string) {
    const base = `/v1/email/reports/domains/${domain}`;
    const summary = (await api(`${base}/summary${query}`)).json().data;
    const r = await get(`/dashboard/reports/${domain}${query}`);
    expect(r.statusCode).toBe(200);
    const fact = (name: string) => new RegExp(`<dt>${name}</dt><dd>([^<]*)</dd>`).exec(r.body)?.[1];
    const n = (x: number) => x.toLocaleString('en');
    expect(fact('Messages'), domain).toBe(n(summary.messages));
    expect(fact('Aggregate reports')).toBe(n(summary.reports));
    expect(fact('DMARC pass / fail')).toBe(`${n(summary.dmarc_pass)} / ${n(summary.dmarc_fail)}`);
    expect(fact('SPF aligned pass')).toBe(n(summary.spf_aligned_pass));
    expect(fact('DKIM aligned pass')).toBe(n(summary.dkim_aligned_pass));
    expect(r.body).toContain(`DMARC summary, ${summary.period.from} to ${summary.period.to}`);
    expect(r.body).toContain('<svg viewBox');
    const group = query.includes('organization') ? 'organization' : 'ip';
    const sources = (await api(`${base}/sources${query}`)).json().data;
    const shown = (x: { ip: string; asn: number | null }) => (group === 'ip' ? `>${x.ip}</a>` : `AS${x.asn}`);
    for (const x of sources.sources.filter((y: { asn: number | null }) => group === 'ip' || y.asn !== null))
      expect(r.body).toContain(shown(x));
    const csv = await get(`/dashboard/reports/${domain}/sources.csv${query}`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    const fromApi = await api(`${base}/sources.csv${query ? `${query}&` : '?'}limit=500`);
    expect(csv.body).toBe(fromApi.body);
  }

  it.skipIf(skip)(
    'lists the domains and shows the same numbers as the API summary, and its CSV',
    async () => {
      const list = await get('/dashboard/reports');
      expect(list.body).toContain('aria-current="page">Reports</a>');
      const { domains } = (await api('/v1/email/reports/domains?limit=1000')).json().data;
      expect(domains.length).toBeGreaterThan(3);
      for (const d of domains as { domain: string }[]) {
        expect(list.body).toContain(`<a href="/dashboard/reports/${d.domain}">${d.domain}</a>`);
        for (const query of ['', '?from=2018-01-01&to=2018-12-31', '?from=2019-01-01&group=organization'])
          await samePage(d.domain, query);
      }
      const byOrg = await get(
        '/dashboard/reports/example.com?from=2018-01-01&to=2018-12-31&group=organization',
      );
      expect(byOrg.body).toContain('aria-current="page">By organisation</a>');
    },
  );

  it.skipIf(skip)('another user sees none of it', async () => {
    const list = await get('/dashboard/reports', 'b');
    expect(list.body).toContain('No reports yet.');
    const { domains } = (await api('/v1/email/reports/domains?limit=1000')).json().data;
    const d = (domains as { domain: string; messages: number; last_end: string }[]).find(
      (x) => x.messages > 0,
    );
    const query = `?to=${d?.last_end.slice(0, 10)}&from=${d?.last_end.slice(0, 4)}-01-01`;
    const { sources } = (await api(`/v1/email/reports/domains/${d?.domain}/sources${query}`)).json().data;
    const ip = sources[0].ip as string;
    expect((await get(`/dashboard/reports/${d?.domain}${query}`)).body).toContain(`>${ip}</a>`);
    const page = await get(`/dashboard/reports/${d?.domain}${query}`, 'b');
    expect(page.statusCode).toBe(200);
    expect(/<dt>Messages<\/dt><dd>([^<]*)<\/dd>/.exec(page.body)?.[1]).toBe('0');
    expect(page.body).not.toContain(`>${ip}</a>`);
    const csv = await get(`/dashboard/reports/${d?.domain}/sources.csv${query}`, 'b');
    expect(csv.body.trim().split('\n')).toHaveLength(1);
    const { reports } = (await api('/v1/email/reports')).json().data;
    const theirs = await get(`/dashboard/reports?stored=${reports[0].id}`, 'b');
    expect(theirs.body).not.toContain('Stored:');
    expect((await get('/dashboard/reports/rejected', 'b')).body).toContain('None.');
  });

  it.skipIf(skip)('refuses a forged or malformed upload, storing nothing', async () => {
    const before = (await api('/v1/email/reports')).json().data.total;
    const bytes = Buffer.from(hostileReport());
    const forged = await upload(
      multipart({ _csrf: 'x'.repeat(users.a.csrf.length) }, { name: 'r.xml', bytes }),
    );
    expect([forged.statusCode, forged.headers.location]).toEqual([303, '/dashboard/login']);
    const theirs = await upload(multipart({ _csrf: users.b.csrf }, { name: 'r.xml', bytes }));
    expect(theirs.headers.location).toBe('/dashboard/login');
    const noCookie = await t.app.http.inject({
      method: 'POST',
      url: '/dashboard/reports/upload',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload: multipart({ _csrf: users.a.csrf }, { name: 'r.xml', bytes }),
    });
    expect(noCookie.headers.location).toBe('/dashboard/login');
    // Not multipart, cut short, or no boundary: no token can be read, so back to sign-in.
    const form = new URLSearchParams({ _csrf: users.a.csrf, report: 'x' }).toString();
    expect((await upload(Buffer.from(form), 'a', 'application/x-www-form-urlencoded')).statusCode).toBe(303);
    expect((await upload(multipart({ _csrf: users.a.csrf }).subarray(0, 60))).statusCode).toBe(303);
    expect((await upload(multipart({ _csrf: users.a.csrf }), 'a', 'multipart/form-data')).statusCode).toBe(
      303,
    );
    const noFile = await upload(multipart({ _csrf: users.a.csrf }));
    expect(noFile.statusCode).toBe(400);
    expect(noFile.body).toContain('Choose a report file to upload.');
    const empty = await upload(multipart({ _csrf: users.a.csrf }, { name: 'e.xml', bytes: Buffer.alloc(0) }));
    expect(empty.statusCode).toBe(400);
    // A file past NETREP_REPORTS_MAX_UPLOAD_BYTES: the list page says so; a body past the form's
    // allowance is Fastify's 413, as an HTML page for a browser.
    const max = t.app.services.config.reportsMaxUploadBytes;
    const big = await upload(
      multipart({ _csrf: users.a.csrf }, { name: 'big.xml', bytes: Buffer.alloc(max + 1, 32) }),
    );
    expect(big.statusCode).toBe(413);
    expect(big.body).toContain(`The file is larger than ${max} bytes (NETREP_REPORTS_MAX_UPLOAD_BYTES).`);
    const huge = await t.app.http.inject({
      method: 'POST',
      url: '/dashboard/reports/upload',
      headers: {
        cookie: users.a.cookie,
        accept: 'text/html',
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      },
      payload: multipart(
        { _csrf: users.a.csrf },
        { name: 'huge.xml', bytes: Buffer.alloc(max + 128 * 1024, 32) },
      ),
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.headers['content-type']).toContain('text/html');
    expect((await api('/v1/email/reports')).json().data.total).toBe(before);
  });

  it.skipIf(skip)('escapes hostile report text on every page', async () => {
    const r = await upload(
      multipart(
        { _csrf: users.a.csrf },
        { name: 'h.xml', bytes: Buffer.from(hostileReport()), type: 'text/xml' },
      ),
    );
    expect(r.headers.location).toMatch(/stored=/);
    for (const url of [
      String(r.headers.location),
      '/dashboard/reports/hostile.example?from=2026-05-01&to=2026-06-30',
    ]) {
      const page = await get(url);
      expect(page.statusCode, url).toBe(200);
      expect(page.body).not.toContain('<script>alert');
      expect(page.body).not.toContain('<img src=x');
      expect(page.body).toContain('&lt;script&gt;alert(&quot;org&quot;)&lt;/script&gt;&#39;&quot;&amp;x');
    }
    const page = await get('/dashboard/reports/hostile.example?from=2026-05-01&to=2026-06-30');
    expect(page.body).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it.skipIf(skip)(
    'answers bad dates, groups, offsets and domains with a page saying what is wrong',
    async () => {
      const cases: [string, number, string][] = [
        [
          '/dashboard/reports/example.com?from=2026-13-01',
          400,
          'from must be a date as YYYY-MM-DD, not &quot;2026-13-01&quot;',
        ],
        ['/dashboard/reports/example.com?to=yesterday', 400, 'to must be a date as YYYY-MM-DD'],
        [
          '/dashboard/reports/example.com?from=2026-02-01&to=2026-01-01',
          400,
          'from (2026-02-01) is after to (2026-01-01)',
        ],
        ['/dashboard/reports/example.com?from=2020-01-01&to=2026-01-01', 400, 'longer than 366 days'],
        ['/dashboard/reports/example.com?group=asn', 400, 'group must be ip or organization.'],
        ['/dashboard/reports/example.com?offset=-1', 400, 'offset must be a whole number'],
        ['/dashboard/reports/%3Cscript%3Ex', 400, 'domain &quot;&lt;script&gt;x&quot; is not a domain name'],
        [`/dashboard/reports/${'a'.repeat(900)}`, 400, 'is not a domain name'],
        ['/dashboard/reports/example.com/sources.csv?from=2026-02-30', 400, 'from must be a date'],
      ];
      for (const [url, status, message] of cases) {
        const r = await get(url);
        expect([url, r.statusCode]).toEqual([url, status]);
        expect(r.headers['content-type'], url).toContain('text/html');
        expect(r.body, url).toContain(message);
        expect(r.body).not.toContain('<script>x');
      }
      // Signed out: every page leads to sign-in.
      for (const url of [
        '/dashboard/reports',
        '/dashboard/reports/rejected',
        '/dashboard/reports/example.com',
      ]) {
        const r = await t.app.http.inject({ method: 'GET', url });
        expect([url, r.statusCode, r.headers.location]).toEqual([url, 303, '/dashboard/login']);
      }
    },
  );
});
