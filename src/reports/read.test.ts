/**
 * Hostile and broken uploads (issue #38 item 1): each is refused with INVALID_REPORT and a reason,
 * or PAYLOAD_TOO_LARGE when it inflates past the cap; never a crash, never the whole bomb in memory.
 */
import zlib from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { AppError } from '../core/errors.ts';
import { readReport } from './read.ts';

const CAP = 1024 * 1024;

function aggregate(o: { row?: string; begin?: string; end?: string; head?: string } = {}): string {
  const row =
    o.row ??
    '<source_ip>192.0.2.1</source_ip><count>3</count><policy_evaluated><disposition>none</disposition><dkim>pass</dkim><spf>fail</spf></policy_evaluated>';
  return `${o.head ?? '<?xml version="1.0"?>'}<feedback><report_metadata><org_name>r.example</org_name><report_id>1</report_id>
<date_range><begin>${o.begin ?? '1700000000'}</begin><end>${o.end ?? '1700086399'}</end></date_range></report_metadata>
<policy_published><domain>example.com</domain><p>none</p></policy_published>
<record><row>${row}</row><identifiers><header_from>example.com</header_from></identifiers><auth_results/></record></feedback>`;
}

async function refusal(bytes: Uint8Array | string): Promise<{ code: string; message: string }> {
  try {
    await readReport(typeof bytes === 'string' ? Buffer.from(bytes) : bytes, CAP);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return { code: (err as AppError).code, message: (err as AppError).message };
  }
  throw new Error('accepted');
}

const rowWith = (ip: string, count: string) =>
  `<source_ip>${ip}</source_ip><count>${count}</count><policy_evaluated><disposition>none</disposition><dkim>pass</dkim><spf>pass</spf></policy_evaluated>`;

describe('readReport', () => {
  it('reads a well-formed aggregate report in every wrapping', async () => {
    const xml = strToU8(aggregate());
    for (const [bytes, format] of [
      [xml, 'xml'],
      [zlib.gzipSync(xml), 'gzip>xml'],
      [zipSync({ 'r.example!example.com!1700000000!1700086399.xml': xml }), 'zip>xml'],
    ] as const) {
      const read = await readReport(bytes, CAP);
      expect(read.format).toBe(format);
      expect(read.report.records).toMatchObject([
        { source_ip: '192.0.2.1', count: 3, dkim: 'pass', spf: 'fail' },
      ]);
    }
  });

  it('decodes XML references in text once: predefined entities and character references', async () => {
    const xml = aggregate({
      row: '<source_ip>192.0.2.1</source_ip><count>1</count><policy_evaluated><disposition>none</disposition><dkim>pass</dkim><spf>pass</spf><reason><type>other</type><comment>AT&amp;T &lt;relay&gt; &quot;x&quot; &apos;y&apos; &#x4E2D;&#25991; &amp;#65; &#0; &#xFFFF;</comment></reason></policy_evaluated>',
    }).replace('<org_name>r.example</org_name>', '<org_name>AT&amp;T Mail</org_name>');
    const read = await readReport(Buffer.from(xml), CAP);
    expect(read.report.orgName).toBe('AT&T Mail');
    // `&amp;#65;` is the text "&#65;", not "A"; references to code points XML forbids stay as written.
    expect(read.report.records[0]?.reasons).toEqual([
      { type: 'other', comment: 'AT&T <relay> "x" \'y\' 中文 &#65; &#0; &#xFFFF;' },
    ]);
  });

  it('refuses empty, unknown and truncated bodies with the reason', async () => {
    expect(await refusal('')).toEqual({ code: 'INVALID_REPORT', message: 'the body is empty' });
    expect((await refusal('\x00\x01binary')).message).toBe(
      'the body is not XML, JSON, gzip, zip or an email',
    );
    const gz = zlib.gzipSync(Buffer.from(aggregate()));
    expect((await refusal(gz.subarray(0, gz.length - 10))).message).toMatch(/^gzip: unexpected end of file/);
    const zip = zipSync({ 'r.xml': strToU8(aggregate()) });
    expect((await refusal(zip.subarray(0, 60))).message).toMatch(/^zip: /);
    expect((await refusal(aggregate().slice(0, 200))).message).toMatch(/^XML: /);
    expect((await refusal('{"organization-name": "x"')).message).toMatch(/^JSON: /);
  });

  it('refuses zips that are not one plain file', async () => {
    const xml = strToU8(aggregate());
    expect((await refusal(zipSync({ 'a.xml': xml, 'b.xml': xml }))).message).toBe(
      'zip: more than one file inside',
    );
    expect((await refusal(zipSync({ 'inner.zip': zipSync({ 'r.xml': xml }) }))).message).toBe(
      'an archive inside an archive is not accepted',
    );
    expect((await refusal(zlib.gzipSync(zlib.gzipSync(xml)))).message).toBe(
      'an archive inside an archive is not accepted',
    );
    for (const name of ['../evil.xml', '/etc/evil.xml', 'dir\\..\\evil.xml', 'c:evil.xml'])
      expect((await refusal(zipSync({ [name]: xml }))).message, name).toBe('zip: the file name is a path');
    expect((await refusal(zipSync({}))).message).toBe('zip: no file inside');
  });

  it('stops a gzip or zip bomb at the cap with 413', async () => {
    const huge = Buffer.alloc(64 * 1024 * 1024, 0x20);
    const before = process.memoryUsage().rss;
    expect(await refusal(zlib.gzipSync(huge))).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      message: `the report inflates past ${CAP} bytes`,
    });
    expect((await refusal(zipSync({ 'r.xml': huge.subarray(0, 16 * 1024 * 1024) }))).code).toBe(
      'PAYLOAD_TOO_LARGE',
    );
    // Far below the 64 MiB it would take to inflate either (generous: the machine is shared).
    expect(process.memoryUsage().rss - before).toBeLessThan(48 * 1024 * 1024);
  });

  it('refuses a document type declaration: no entity is ever expanded', async () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>`;
    expect((await refusal(aggregate({ head: laughs }))).message).toBe(
      'XML: a document type declaration is not accepted',
    );
    expect((await refusal(aggregate({ head: '<!ENTITY x SYSTEM "file:///etc/passwd">' }))).message).toBe(
      'XML: a document type declaration is not accepted',
    );
  });

  it('refuses counts, numbers, dates and addresses out of range', async () => {
    const cases: [string, RegExp][] = [
      [
        aggregate({ row: rowWith('192.0.2.1', '2147483648') }),
        /count: 2147483648 is outside 0\.\.2147483647$/,
      ],
      [aggregate({ row: rowWith('192.0.2.1', '-1') }), /count: -1 is outside/],
      [aggregate({ row: rowWith('192.0.2.1', '99999999999999999999999999') }), /count: .* is outside/],
      [aggregate({ row: rowWith('192.0.2.1', '1.5') }), /count: "1.5" is not a whole number$/],
      [aggregate({ row: rowWith('192.0.2.1', '0x10') }), /is not a whole number$/],
      [aggregate({ row: rowWith('192.0.2.256', '1') }), /source_ip: "192.0.2.256" is not an IP address$/],
      [aggregate({ row: rowWith('not-an-ip', '1') }), /source_ip: "not-an-ip" is not an IP address$/],
      [aggregate({ row: rowWith('', '1') }), /source_ip: nothing is not an IP address$/],
      [aggregate({ begin: '-5' }), /date_range\/begin: -5 is outside/],
      [aggregate({ end: '99999999999' }), /date_range\/end: 99999999999 is outside/],
      [aggregate({ begin: '1700086399', end: '1700000000' }), /date_range: the end is before the begin$/],
    ];
    for (const [xml, reason] of cases) {
      const r = await refusal(xml);
      expect(r.code).toBe('INVALID_REPORT');
      expect(r.message).toMatch(reason);
    }
  });

  it('refuses a TLS report with broken numbers or dates', async () => {
    const tls = (count: unknown, start = '2024-01-01T00:00:00Z') =>
      JSON.stringify({
        'organization-name': 'o',
        'report-id': 'r',
        'date-range': { 'start-datetime': start, 'end-datetime': '2024-01-01T23:59:59Z' },
        policies: [
          {
            policy: { 'policy-type': 'sts', 'policy-domain': 'example.com' },
            summary: { 'total-successful-session-count': count, 'total-failure-session-count': 0 },
          },
        ],
      });
    expect((await readReport(Buffer.from(tls(5)), CAP)).report.messageCount).toBe(5);
    expect((await refusal(tls(-1))).message).toMatch(/total-successful-session-count: -1 is outside/);
    expect((await refusal(tls(1e300))).message).toMatch(/is not a whole number/);
    expect((await refusal(tls('many'))).message).toMatch(/is not a whole number/);
    expect((await refusal(tls(1, '2024-13-45T00:00:00Z'))).message).toMatch(
      /start-datetime: .* is not a date-time/,
    );
  });

  it('survives deep nesting without a crash', async () => {
    const deep = `<feedback>${'<a>'.repeat(20000)}${'</a>'.repeat(20000)}</feedback>`;
    expect((await refusal(deep)).code).toBe('INVALID_REPORT');
    const deepJson = `${'{"a":'.repeat(20000)}1${'}'.repeat(20000)}`;
    expect((await refusal(deepJson)).code).toBe('INVALID_REPORT');
  });
});
