/**
 * Truth from other readers (issue #38, first "Done when" line): for every aggregate sample in
 * ../shared/data/email/dmarc that netrep stores, the rows GET /v1/email/reports/{id} returns agree
 * row by row with Debian's libmail-dmarc-perl (Mail::DMARC's own report reader, through
 * fixtures/mail-dmarc-rows.pl) and, for the files it reads from standard input, with `dmarc-cat`:
 * source IP, count, disposition, DKIM/SPF results and the policy published.
 *
 * Where Mail::DMARC 1.20211209 rewrites a value, the rewrite is compared, not hidden: it reads a
 * disposition outside none/quarantine/reject as `none`, so RFC 9990's `pass` is `none` there.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/helpers/app.ts';
import { sharedDataPath } from '../../test/helpers/shared-data.ts';

const DIR = sharedDataPath('email', 'dmarc', 'aggregate');
const PERL_READER = new URL('./fixtures/mail-dmarc-rows.pl', import.meta.url).pathname;

function installed(): string | null {
  if (!fs.existsSync('/usr/bin/dmarc-cat')) return 'dmarc-cat is not installed (Debian package dmarc-cat)';
  try {
    execFileSync('perl', ['-MMail::DMARC::Report::Receive', '-e', '1'], { stdio: 'ignore' });
  } catch {
    return 'Mail::DMARC is not installed (Debian package libmail-dmarc-perl)';
  }
  return null;
}

const missing = installed();
// CI installs both (.ci/run APT_PACKAGES); elsewhere a machine without them skips, saying why.
if (missing && !process.env.CI) process.stdout.write(`[skip] report agreement: ${missing}\n`);
const skip = missing !== null && !process.env.CI;

interface PerlReport {
  org_name: string;
  report_id: string;
  policy: Record<'domain' | 'adkim' | 'aspf' | 'p' | 'sp' | 'pct', string | null>;
  rows: {
    source_ip: string;
    count: number;
    disposition: string;
    dkim: string;
    spf: string;
    dkim_results: string[];
    spf_results: string[];
  }[];
}

interface ApiRecord {
  source_ip: string;
  count: number;
  disposition: string;
  dkim: string;
  spf: string;
  dkim_results: { result: string }[];
  spf_results: { result: string }[];
}

/**
 * The file the other readers are given. libxml and Go's XML reader refuse a document with invalid
 * UTF-8 where netrep reads the bad bytes as U+FFFD; such a file is given to them as a copy with
 * that replacement made.
 */
function forReferences(file: string): string {
  if (!file.endsWith('.xml')) return file;
  const bytes = fs.readFileSync(file);
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return file;
  } catch {
    const copy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'netrep-dmarc-')), path.basename(file));
    fs.writeFileSync(copy, new TextDecoder('utf-8').decode(bytes));
    return copy;
  }
}

function perlReport(file: string): PerlReport {
  const out = execFileSync('perl', [PERL_READER, file], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  // Mail::DMARC prints what it learns from an email's subject first; the JSON is the last line.
  const reports = JSON.parse(out.trim().split('\n').at(-1) ?? '[]') as PerlReport[];
  expect(reports, file).toHaveLength(1);
  return reports[0] as PerlReport;
}

/** dmarc-cat's table rows (IP, count, DKIM and SPF auth results) of an XML document on stdin. */
function dmarcCatRows(xml: Buffer): string[] {
  const out = execFileSync('dmarc-cat', ['-N', '-j', '1', '-t', '.xml', '-'], {
    input: xml,
    encoding: 'utf8',
  });
  const table = out.split('\n');
  const start = table.findIndex((l) => l.startsWith('IP '));
  return table
    .slice(start + 1)
    .filter((l) => l.trim() !== '')
    .map((l) => l.trim().split(/\s+/).slice(0, 2).join(' '))
    .sort();
}

describe.skipIf(skip)('aggregate rows agree with Mail::DMARC and dmarc-cat', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    key = await t.key({ permissions: ['email:read'] });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function stored(
    file: string,
  ): Promise<{ policy_published: Record<string, unknown>; records: ApiRecord[] } | null> {
    const headers = { 'x-api-key': key };
    const up = await t.app.http.inject({
      method: 'POST',
      url: '/v1/email/reports',
      headers,
      payload: fs.readFileSync(file),
    });
    if (up.statusCode >= 400) return null;
    const got = await t.app.http.inject({
      method: 'GET',
      url: `/v1/email/reports/${up.json().data.id}`,
      headers,
    });
    return got.json().data;
  }

  const files = fs.readdirSync(DIR).sort();

  it.each(files)('%s', async (name) => {
    const file = path.join(DIR, name);
    const ours = await stored(file);
    if (ours === null) return; // refused with its reason: email-reports.test.ts checks which and why
    const reference = forReferences(file);
    const theirs = perlReport(reference);
    const policy = ours.policy_published;
    expect({
      domain: policy.domain,
      adkim: policy.adkim,
      aspf: policy.aspf,
      p: policy.p,
      sp: policy.sp,
      pct: policy.pct === null ? null : String(policy.pct),
    }).toEqual(theirs.policy);
    expect(
      ours.records.map((r) => ({
        source_ip: r.source_ip,
        count: r.count,
        disposition: r.disposition === 'pass' ? 'none' : r.disposition,
        dkim: r.dkim,
        spf: r.spf,
        dkim_results: r.dkim_results.map((d) => d.result),
        spf_results: r.spf_results.map((s) => s.result),
      })),
    ).toEqual(theirs.rows);
    if (name.endsWith('.xml') || name.endsWith('.xml.gz')) {
      const xml = name.endsWith('.gz') ? execFileSync('gzip', ['-dc', file]) : fs.readFileSync(reference);
      expect(ours.records.map((r) => `${r.source_ip} ${r.count}`).sort()).toEqual(dmarcCatRows(xml));
    }
  });
});
