/**
 * netrep's reading of Authentication-Results, ARC-Seal and ARC-Authentication-Results against
 * mailauth's (postalsys, the parser the issue's anchors use) on every message in
 * shared/data/email: the .eml files (messages/, dkim/, dmarc/), the header samples (headers/) and
 * every message of the ValiMail ARC suites (arc/*.yml). Only mailauth's parsing functions run
 * (`parseHeaders`, the header parser of `parse-dkim-headers.js`, `getARChain`): nothing verifies
 * a signature, so no DNS query is made.
 *
 * For each message: the Authentication-Results headers (count, authserv-id, every dkim= result
 * with d= and s=, the last spf=, dmarc= and arc= results, which is what mailauth keeps of those),
 * the ARC-Seals (i= and cv= of each), the instance count, the last instance's cv=, each
 * ARC-Authentication-Results' authserv-id and arc= result, and whether the chain's structure is
 * sound (mailauth's getARChain throws on a broken one). The table of disagreements is printed;
 * each row must be explained in EXPLAINED below.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
// Proof that mailauth asks no resolver: a node:dns query off 127.0.0.1 would throw here.
import '../../test/helpers/dns-guard.ts';
import { sharedDataPath } from '../../test/helpers/shared-data.ts';
import { createManualClock } from '../core/clock.ts';
import { analyzeHeaders, type HeaderAnalysis } from './index.ts';

const require = createRequire(import.meta.url);

interface MailauthEntry {
  value?: unknown;
  header?: { d?: string; s?: string; i?: string };
}
type MailauthParsed = Record<string, unknown> & { value?: string; dkim?: MailauthEntry[] };
const parseHeaderField = require('mailauth/lib/parse-dkim-headers.js') as (line: Buffer) => {
  parsed: MailauthParsed;
};
const { parseHeaders } = require('mailauth/lib/tools.js') as {
  parseHeaders(buf: Buffer): { parsed: { key: string | null; line: Buffer }[] };
};
const { getARChain } = require('mailauth/lib/arc/index.js') as {
  getARChain(headers: { parsed: unknown[] }): unknown[] | false;
};

const EMAIL = sharedDataPath('email');

/** The messages of an ARC suite file (arc/*.yml): [file#test, message]. */
function arcSuiteMessages(full: string): [string, string][] {
  const out: [string, string][] = [];
  // json: the validation suite names one test twice (line 6148); the later one is read, as a YAML 1.1 reader would.
  for (const doc of loadAll(readFileSync(full, 'utf8'), { json: true }) as {
    tests?: Record<string, { message?: string }>;
  }[])
    for (const [test, t] of Object.entries(doc?.tests ?? {}))
      if (typeof t.message === 'string' && t.message.trim() !== '')
        out.push([`${path.relative(EMAIL, full)}#${test}`, t.message]);
  return out;
}

/** Adds the messages under `dir` (sorted, depth first): .eml and .headers.txt files, ARC suite files. */
function walkMessages(dir: string, out: [string, string][]): void {
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) walkMessages(full, out);
    else if (name.endsWith('.eml') || name.endsWith('.headers.txt'))
      out.push([path.relative(EMAIL, full), readFileSync(full, 'utf8')]);
    else if (name.endsWith('.yml') && dir.endsWith(`${path.sep}arc`)) out.push(...arcSuiteMessages(full));
  }
}

/** Every message: [name relative to shared/data/email, its header section]. */
function messages(): [string, string][] {
  const out: [string, string][] = [];
  walkMessages(EMAIL, out);
  return out;
}

const headerSection = (text: string) => text.split(/\r?\n\r?\n/, 1)[0] ?? '';
const lower = (v: unknown) => (typeof v === 'string' && v !== '' ? v.toLowerCase() : null);
const show = (v: unknown) => JSON.stringify(v ?? null);

/** mailauth's reading of one message, in the shape the comparison uses. */
function mailauthFacts(head: string) {
  const rows = parseHeaders(Buffer.from(head, 'utf8')).parsed;
  const field = (key: string) =>
    rows.filter((r) => r.key === key).map((r) => parseHeaderField(r.line).parsed);
  const ars = field('authentication-results');
  const seals = field('arc-seal');
  const aars = field('arc-authentication-results');
  // mailauth reads i= as a Number (NaN when it is not one); netrep's null is "no valid instance".
  const instanceOf = (p: MailauthParsed) => {
    const i = (p['i'] as MailauthEntry | undefined)?.value;
    return typeof i === 'number' && Number.isInteger(i) && i >= 1 && i <= 50 ? i : null;
  };
  const instances = new Set<number>();
  for (const p of [...seals, ...field('arc-message-signature'), ...aars]) {
    const i = instanceOf(p);
    if (i !== null) instances.add(i);
  }
  const sealList = seals.map((p) => [instanceOf(p), lower((p['cv'] as MailauthEntry | undefined)?.value)]);
  let last: unknown[] | undefined;
  for (const s of sealList) if (typeof s[0] === 'number' && (!last || (last[0] as number) < s[0])) last = s;
  let chain: string;
  try {
    chain = getARChain({ parsed: rows }) ? 'sound' : 'none';
  } catch (err) {
    chain = `broken (${(err as { code?: string }).code}: ${(err as Error).message})`;
  }
  return {
    ars: ars.map((p) => ({
      // "mx.microsoft.com 1": the authserv-id and its version; netrep keeps the id.
      authserv_id: lower(p.value?.split(' ')[0]),
      dkim: (p.dkim ?? []).map((d) => [lower(d.value), lower(d.header?.d), d.header?.s ?? null]),
      spf: lower((p['spf'] as MailauthEntry | undefined)?.value),
      dmarc: lower((p['dmarc'] as MailauthEntry | undefined)?.value),
      arc: lower((p['arc'] as MailauthEntry | undefined)?.value),
    })),
    seals: sealList,
    instances: instances.size,
    verdict: last?.[1] ?? null,
    aars: aars.map((p) => [
      lower(p.value?.split(' ')[0]),
      lower((p['arc'] as MailauthEntry | undefined)?.value),
    ]),
    chain,
  };
}

/** netrep's answer in the same shape. */
function netrepFacts(a: HeaderAnalysis) {
  const auth = a.authentication;
  const lastOf = (results: { method: string; result: string }[], m: string) =>
    results.filter((r) => r.method === m).at(-1)?.result ?? null;
  return {
    ars: auth.authentication_results.map((h) => ({
      authserv_id: h.authserv_id,
      dkim: h.results
        .filter((r) => r.method === 'dkim')
        .map((r) => [r.result, lower(r.properties['header.d']), r.properties['header.s'] ?? null]),
      spf: lastOf(h.results, 'spf'),
      dmarc: lastOf(h.results, 'dmarc'),
      arc: lastOf(h.results, 'arc'),
    })),
    seals: auth.arc.seals.map((s) => [s.instance, s.cv]),
    instances: auth.arc.instances,
    verdict: auth.arc.verdict,
    aars: auth.arc.authentication_results.map((r) => [r.authserv_id, lastOf(r.results, 'arc')]),
    chain: auth.arc.chain_problem,
  };
}

interface Row {
  message: string;
  check: string;
  netrep: string;
  mailauth: string;
}

/**
 * Disagreements that are understood, keyed `message|check`, each with the reason. A row not
 * listed fails the test, and so does an entry no row uses.
 */
const EXPLAINED: Record<string, string> = {
  'arc/arc-draft-validation-tests.yml#aar_i_not_prefixed|ARC chain structure':
    'RFC 8617 §4.1.1 puts i= first in ARC-Authentication-Results ("lists.example.org; i=1; ..." does not); ' +
    'the suite expects cv=Fail, as netrep reads it; mailauth takes i= from anywhere in the header',
};

function compare(
  name: string,
  n: ReturnType<typeof netrepFacts>,
  m: ReturnType<typeof mailauthFacts>,
): Row[] {
  const rows: Row[] = [];
  const check = (what: string, ours: unknown, theirs: unknown) => {
    if (show(ours) !== show(theirs))
      rows.push({ message: name, check: what, netrep: show(ours), mailauth: show(theirs) });
  };
  check('Authentication-Results count', n.ars.length, m.ars.length);
  m.ars.forEach((theirs, i) => {
    const ours = n.ars[i];
    if (!ours) return;
    for (const key of ['authserv_id', 'dkim', 'spf', 'dmarc', 'arc'] as const)
      check(`A-R #${i + 1} ${key}`, ours[key], theirs[key]);
  });
  check('ARC-Seal i= and cv=', n.seals, m.seals);
  check('ARC instances', n.instances, m.instances);
  check('last instance cv=', n.verdict, m.verdict);
  check('ARC-A-R authserv-id and arc=', n.aars, m.aars);
  // mailauth: getARChain returns false (no chain), a chain, or throws; netrep: chain_problem.
  const oursSound = n.chain === null;
  const theirsSound = !m.chain.startsWith('broken');
  if (oursSound !== theirsSound)
    rows.push({
      message: name,
      check: 'ARC chain structure',
      netrep: n.chain ?? 'sound',
      mailauth: m.chain,
    });
  return rows;
}

describe('header analysis agrees with mailauth on every sample', () => {
  const all = messages();

  it('reads every message under shared/data/email the way mailauth does, disagreements explained', async () => {
    const clock = createManualClock(Date.parse('2026-11-27T00:00:00Z'));
    const rows: Row[] = [];
    let withResults = 0;
    for (const [name, text] of all) {
      const head = headerSection(text);
      const n = netrepFacts(await analyzeHeaders(head, { clock }));
      const m = mailauthFacts(head);
      if (m.ars.length > 0 || m.seals.length > 0 || m.aars.length > 0) withResults++;
      rows.push(...compare(name, n, m));
    }
    const unexplained = rows.filter((r) => !(`${r.message}|${r.check}` in EXPLAINED));
    const table = rows.map(
      (r) =>
        `| ${r.message} | ${r.check} | ${r.netrep} | ${r.mailauth} | ${EXPLAINED[`${r.message}|${r.check}`] ?? 'NOT EXPLAINED'} |`,
    );
    console.log(
      [
        `netrep vs mailauth: ${all.length} messages, ${withResults} with Authentication-Results or ARC headers, ${rows.length} disagreements`,
        '| message | check | netrep | mailauth | why |',
        '|---|---|---|---|---|',
        ...table,
      ].join('\n'),
    );
    expect(all.length).toBeGreaterThan(200);
    expect(withResults).toBeGreaterThan(150);
    expect(unexplained).toEqual([]);
    const used = new Set(rows.map((r) => `${r.message}|${r.check}`));
    expect(Object.keys(EXPLAINED).filter((k) => !used.has(k))).toEqual([]);
  });

  it('reports both dkim= results and the two ARC sets of rspamd-arcbad.eml (issue 31)', async () => {
    const head = headerSection(readFileSync(path.join(EMAIL, 'messages', 'rspamd-arcbad.eml'), 'utf8'));
    const a = (await analyzeHeaders(head, { clock: createManualClock(0) })).authentication;
    expect(a.dkim_results.map((d) => [d.result, d.domain, d.selector, d.authserv_id, d.trusted])).toEqual([
      ['pass', 'freebsd.org', 'dkim', 'mail.highsecure.ru', true],
      ['fail', 'outlook.com', 'selector1', 'mail.highsecure.ru', true],
    ]);
    expect(a.arc.seals.map((s) => [s.instance, s.cv, s.domain])).toEqual([
      [1, 'none', 'microsoft.com'],
      [1, 'none', 'freebsd.org'],
    ]);
    expect(a.arc.instances).toBe(1);
    expect(a.arc.chain_problem).toBe('instance i=1 has 2 ARC-Seal headers');
    expect(mailauthFacts(head).chain).toMatch(/^broken \(multiple_arc_keys/);
    expect(a.arc.authentication_results.map((r) => r.authserv_id)).toEqual([
      'mx.microsoft.com',
      'mx1.freebsd.org',
    ]);
  });
});
