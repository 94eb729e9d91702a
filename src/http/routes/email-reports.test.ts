/**
 * Report uploads over HTTP on both stores (issue #38 item 1): every sample in
 * ../shared/data/email/dmarc stored or refused with its reason, a second upload answered as a
 * duplicate, owners kept apart, refused uploads listed with their bytes; the real curl's upload
 * without a Content-Type told which header to add, and stored with it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { sharedDataPath } from '../../../test/helpers/shared-data.ts';
import { STORE_KINDS, skipStore } from '../../../test/helpers/stores.ts';

const SAMPLES = sharedDataPath('email', 'dmarc');
const run = promisify(execFile);

/** What each sample becomes: stored as [kind, rows, messages, format], or refused with a reason. */
const EXPECTED: Record<
  string,
  [string, number, number, string] | { refused: RegExp } | { duplicate: string }
> = {
  'aggregate/Report_domain-_borschow.com_Submitter-_google.com_Report-ID-_949348866075514174.eml': [
    'aggregate',
    1,
    1,
    'eml>zip>xml',
  ],
  'aggregate/addisonfoods.com_example.com_1536105600_1536191999.xml': ['aggregate', 1, 1, 'xml'],
  'aggregate/empty_reason.xml': ['aggregate', 1, 2, 'xml'],
  'aggregate/estadocuenta1.infonacot.gob.mx_example.com_1536853302_1536939702_2940.xml.zip': [
    'aggregate',
    1,
    1,
    'zip>xml',
  ],
  'aggregate/example.com_1538204542_1538463818.xml': ['aggregate', 1, 1, 'xml'],
  'aggregate/example.net_example.com_1529366400_1529452799.xml': ['aggregate', 1, 1, 'xml'],
  'aggregate/fastmail.com_example.com_1516060800_1516147199_102675056.xml.gz': [
    'aggregate',
    1,
    1,
    'gzip>xml',
  ],
  'aggregate/ikea.com_example.de_1538690400_1538776800.xml': { refused: /^XML: Unclosed tag 'xs:schema'/ },
  // The same report as example.com_1538204542_1538463818.xml with one byte broken: a duplicate.
  'aggregate/invalid_utf_8.xml': { duplicate: 'aggregate/example.com_1538204542_1538463818.xml' },
  'aggregate/invalid_xml.xml': { refused: /^XML: Tag 'bad-xml@bad-xml.net' is an invalid name/ },
  'aggregate/mimecast-weird-gzip.eml': ['aggregate', 1, 1, 'eml>gzip>xml'],
  'aggregate/old_draft_from_wiki.xml': ['aggregate', 1, 2, 'xml'],
  'aggregate/protection.outlook.com_example.com_1711756800_1711843200.xml': ['aggregate', 1, 1, 'xml'],
  'aggregate/rfc9990-example.net_example.com_1700000000_1700086399.xml': ['aggregate', 2, 7, 'xml'],
  'aggregate/rfc9990-sample.xml': ['aggregate', 1, 123, 'xml'],
  'aggregate/twilight.eml': ['aggregate', 1, 1, 'eml>zip>xml'],
  'aggregate/usssa.com_example.com_1538784000_1538870399.xml': ['aggregate', 2, 2, 'xml'],
  'aggregate/veeam.com_example.com_1530133200_1530219600.xml': ['aggregate', 1, 1, 'xml'],
  'aggregate_invalid/report_with_upper_cased_pass.xml': {
    refused: /^record 1\/disposition: "None" is not one of none, quarantine, reject, pass$/,
  },
  'failure/DMARC_Failure_Report_for_domain.de__mail-from_sharepoint_domain.de__ip_10.10.10.10_.eml': [
    'failure',
    1,
    1,
    'eml>arf',
  ],
  'failure/Netease_DMARC_Failure_Report__Rent_Reminder.eml': ['failure', 1, 1, 'eml>arf'],
  'failure/dmarc_ruf_report_linkedin.eml': ['failure', 1, 1, 'eml>arf'],
  'failure/exim_plain_text_only_no_arf_part.eml': ['failure', 1, 1, 'eml>text'],
  'smtp_tls/google.com_smtp_tls_report.eml': ['tls', 1, 48, 'eml>gzip>json'],
  'smtp_tls/mail.ru.json': ['tls', 1, 1, 'json'],
  'smtp_tls/rfc8460.json': ['tls', 1, 5629, 'json'],
  'smtp_tls/smtp_tls.json': ['tls', 1, 3, 'json'],
};

function sampleFiles(): string[] {
  return fs
    .readdirSync(SAMPLES)
    .flatMap((dir) => fs.readdirSync(path.join(SAMPLES, dir)).map((f) => `${dir}/${f}`))
    .sort();
}

describe.each(STORE_KINDS)('email reports (%s)', (kind) => {
  const skip = skipStore(kind);
  let t: TestApp;
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    if (skip) return;
    t = await createTestApp(kind, {
      config: { reportsMaxUploadBytes: 256 * 1024, reportsMaxDecodedBytes: 1024 * 1024 },
    });
    key = await t.key({ permissions: ['email:read'] });
    otherKey = await t.key({ permissions: ['email:read'], ownerId: await t.user() });
  });
  afterAll(async () => {
    await t?.close();
  });

  const upload = (body: Buffer | string, type: string | null = 'application/octet-stream', k = key) =>
    t.app.http.inject({
      method: 'POST',
      url: '/v1/email/reports',
      headers: { 'x-api-key': k, ...(type === null ? {} : { 'content-type': type }) },
      payload: body,
    });
  const get = (url: string, k = key) =>
    t.app.http.inject({ method: 'GET', url, headers: { 'x-api-key': k } });

  it.skipIf(skip)('stores or refuses every sample, with its reason', async () => {
    expect(sampleFiles()).toEqual(Object.keys(EXPECTED).sort());
    const ids = new Map<string, number>();
    for (const [file, expected] of Object.entries(EXPECTED)) {
      const r = await upload(fs.readFileSync(path.join(SAMPLES, file)));
      if ('duplicate' in expected) {
        expect([r.statusCode, r.json().data.duplicate, r.json().data.id], file).toEqual([
          200,
          true,
          ids.get(expected.duplicate),
        ]);
        continue;
      }
      if ('refused' in expected) {
        expect([r.statusCode, r.json().data.code], file).toEqual([400, 'INVALID_REPORT']);
        expect(r.json().data.error, file).toMatch(expected.refused);
        expect(r.json().meta.rejected_id, file).toBeTypeOf('number');
        continue;
      }
      expect(r.statusCode, `${file}: ${r.body}`).toBe(201);
      ids.set(file, r.json().data.id);
      const [kindOf, rows, messages, format] = expected;
      expect(r.json().data, file).toMatchObject({
        kind: kindOf,
        record_count: rows,
        message_count: messages,
        source_format: format,
        duplicate: false,
      });
    }
  });

  it.skipIf(skip)('answers a second upload of a report with the stored id, never a second copy', async () => {
    const file = path.join(SAMPLES, 'aggregate', 'twilight.eml');
    const first = await upload(fs.readFileSync(file), 'message/rfc822');
    const before = (await get('/v1/email/reports?limit=1')).json().data.total;
    // Sent again without a Content-Type: the bytes say what it is.
    const again = await upload(fs.readFileSync(file), null);
    expect(first.statusCode).toBe(200);
    expect(again.statusCode).toBe(200);
    expect(again.json().data.duplicate).toBe(true);
    expect(again.json().data.id).toBe(first.json().data.id);
    expect((await get('/v1/email/reports?limit=1')).json().data.total).toBe(before);
  });

  it.skipIf(skip)('lists reports newest first, paged, and shows one with its rows', async () => {
    const list = (await get('/v1/email/reports?limit=2&offset=0')).json().data;
    expect(list.total).toBe(Object.values(EXPECTED).filter(Array.isArray).length);
    expect(list.reports).toHaveLength(2);
    expect(list.reports[0].id).toBeGreaterThan(list.reports[1].id);
    const all = (await get('/v1/email/reports?limit=100')).json().data.reports as {
      id: number;
      report_id: string;
    }[];
    const bis = all.find((r) => r.report_id === 'dmarcbis-test-report-001');
    const one = (await get(`/v1/email/reports/${bis?.id}`)).json().data;
    expect(one.policy_published).toMatchObject({ domain: 'example.com', p: 'reject', np: 'reject' });
    expect(one.records.map((r: { source_ip: string; count: number }) => [r.source_ip, r.count])).toEqual([
      ['198.51.100.1', 5],
      ['203.0.113.10', 2],
    ]);
    expect([one.failures, one.tls_policies]).toEqual([[], []]);
    const tls = all.find((r) => r.report_id === '5065427c-23d3-47ca-b6e0-946ea0e8c4be');
    const tlsReport = (await get(`/v1/email/reports/${tls?.id}`)).json().data;
    expect(tlsReport.tls_policies[0]).toMatchObject({
      policy_type: 'sts',
      successful_sessions: 5326,
      failed_sessions: 303,
    });
    const exim = (await get('/v1/email/reports?limit=100'))
      .json()
      .data.reports.find((r: { source_format: string }) => r.source_format === 'eml>text');
    const failure = (await get(`/v1/email/reports/${exim.id}`)).json().data.failures[0];
    expect(failure).toMatchObject({
      source_ip: '203.0.113.68',
      reported_domain: 'example.com',
      feedback_type: 'text',
    });
  });

  it.skipIf(skip)('keeps owners apart', async () => {
    const mine = (await get('/v1/email/reports?limit=1')).json().data.reports[0];
    const theirs = await get(`/v1/email/reports/${mine.id}`, otherKey);
    expect([theirs.statusCode, theirs.json().data.code]).toEqual([404, 'NOT_FOUND']);
    expect((await get('/v1/email/reports', otherKey)).json().data.total).toBe(0);
    expect((await get('/v1/email/reports/rejected', otherKey)).json().data.total).toBe(0);
    // The other owner stores its own copy of the same report.
    const copy = await upload(
      fs.readFileSync(path.join(SAMPLES, 'smtp_tls', 'mail.ru.json')),
      'application/json',
      otherKey,
    );
    expect([copy.statusCode, copy.json().data.duplicate]).toEqual([201, false]);
  });

  it.skipIf(skip)('lists refused uploads with the reason and the bytes', async () => {
    const r = await upload('<feedback><oops></feedback>', 'application/xml');
    expect([r.statusCode, r.json().data.code]).toEqual([400, 'INVALID_REPORT']);
    const rejected = (await get('/v1/email/reports/rejected?limit=1')).json().data;
    expect(rejected.rejected[0]).toMatchObject({
      id: r.json().meta.rejected_id,
      content_type: 'application/xml',
      size: 27,
      raw_truncated: false,
    });
    expect(Buffer.from(rejected.rejected[0].raw_base64, 'base64').toString()).toBe(
      '<feedback><oops></feedback>',
    );
    expect(rejected.total).toBe(4);
  });

  it.skipIf(skip)('answers hostile uploads with the envelope, never a 5xx', async () => {
    const xml = fs.readFileSync(path.join(SAMPLES, 'aggregate', 'old_draft_from_wiki.xml'));
    const wrongType = await upload(xml, 'image/png');
    expect([wrongType.statusCode, wrongType.json().data.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    expect(wrongType.json().data.error).toMatch(/^content type must be one of application\/xml, /);
    // curl --data-binary @report.xml.gz without -H: told what to add.
    const curlDefault = await upload(xml, 'application/x-www-form-urlencoded');
    expect([curlDefault.statusCode, curlDefault.json().data.error]).toEqual([
      415,
      expect.stringMatching(/--data-binary .* add -H 'Content-Type: application\/octet-stream'\)$/),
    ]);
    const empty = await upload('', 'application/xml');
    expect([empty.statusCode, empty.json().data.code, empty.json().data.error]).toEqual([
      400,
      'INVALID_REPORT',
      'the body is empty',
    ]);
    const noType = await upload(Buffer.from('just words'), null);
    expect([noType.statusCode, noType.json().data.code]).toEqual([400, 'INVALID_REPORT']);
    const tooBig = await upload(Buffer.alloc(300 * 1024, 0x20), 'application/xml');
    expect([tooBig.statusCode, tooBig.json().data.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    // 200 KiB of gzip that inflates to 200 MiB: stopped at the 1 MiB cap, kept as refused.
    const bomb = zlib.gzipSync(Buffer.alloc(200 * 1024 * 1024, 0x20));
    const r = await upload(bomb, 'application/gzip');
    expect([r.statusCode, r.json().data.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    expect(r.json().meta.rejected_id).toBeTypeOf('number');
    const wrongKey = await get('/v1/email/reports/abc');
    expect([wrongKey.statusCode, wrongKey.json().data.code]).toEqual([400, 'INVALID_PARAMETER']);
  });

  it.skipIf(skip)(
    'curl --data-binary: refused with the hint, and stored once given the header it names',
    async () => {
      // The real curl, over a socket: what it sends without -H is what the 415's hint says.
      const base = await t.app.listen();
      const file = path.join(SAMPLES, 'aggregate', 'old_draft_from_wiki.xml');
      const curl = async (...extra: string[]) => {
        const { stdout } = await run('curl', [
          '-s',
          '-w',
          '\n%{http_code}',
          '--data-binary',
          `@${file}`,
          '-H',
          `x-api-key: ${key}`,
          ...extra,
          `${base}/v1/email/reports`,
        ]);
        const nl = stdout.lastIndexOf('\n');
        return { status: Number(stdout.slice(nl + 1)), body: JSON.parse(stdout.slice(0, nl)) };
      };
      const bare = await curl();
      expect([bare.status, bare.body.data.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
      const hinted = /add -H '([^']+)'/.exec(bare.body.data.error)?.[1] ?? '';
      expect(hinted).toBe('Content-Type: application/octet-stream');
      const given = await curl('-H', hinted);
      expect([200, 201]).toContain(given.status);
      expect(given.body.data.kind).toBe('aggregate');
    },
  );
});
