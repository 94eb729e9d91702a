/**
 * `netrep domain check DOMAIN [--selector S]... [--json]`: the email authentication check of
 * GET /v1/email/domain/{domain} (MX, SPF, DKIM, DMARC, score and grade; MTA-STS, TLS-RPT and
 * BIMI, not graded), through the resolvers in NETREP_DNS_SERVERS, printed as a report (or the
 * API's JSON answer with --json).
 *
 * Exit codes (issue 31): 0 every record was read; 1 bad input (INVALID_DOMAIN, too many
 * selectors); 3 incomplete: some records could not be checked, the report says "could not
 * check" for them and the grade counts only what was read; 4 DNS_UNAVAILABLE: none of MX, SPF
 * and DMARC could be read, no grade is printed.
 */
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import { createDnsClient } from '../core/dns/index.ts';
import { AppError } from '../core/errors.ts';
import {
  checkDomain,
  type DomainAuthResult,
  describeResolvers,
  dnsFailureLabel,
  dnsUnavailable,
  normalizeSelectors,
} from '../emailauth/index.ts';

/** `netrep domain check` exit codes beyond 0 (complete) and 1 (bad input). */
export const EXIT_INCOMPLETE = 3;
export const EXIT_DNS_UNAVAILABLE = 4;

const mark = (ok: boolean): string => (ok ? 'ok  ' : 'FAIL');
/** The mark of a record that could not be read: neither ok nor FAIL. */
const UNREAD = '??  ';

function findings(lines: readonly string[], prefix: string): string {
  return lines.map((l) => `        ${prefix} ${l}\n`).join('');
}

/** The records that could not be checked, as a person names them (MX, SPF, DKIM selector s1, DMARC). */
export function uncheckedRecords(r: DomainAuthResult): string[] {
  const s = r.record_status;
  return [
    s.mx === 'temperror' ? 'MX' : null,
    s.spf === 'temperror' ? 'SPF' : null,
    ...Object.entries(s.dkim)
      .filter(([, v]) => v === 'temperror')
      .map(([selector]) => `DKIM selector ${selector}`),
    s.dmarc === 'temperror' ? 'DMARC' : null,
  ].filter((x) => x !== null);
}

/** The MX block: each exchange with its addresses, a null MX, or why there is none. */
function mxBlock(r: DomainAuthResult): string {
  const unread = r.record_status.mx === 'temperror';
  const mxUnread = (h: { exchange: string }) =>
    r.unchecked.some((u) => u.record === 'mx' && u.query.startsWith(`${h.exchange} `));
  const hostText = (h: DomainAuthResult['mx']['hosts'][number]) =>
    `${h.exchange} (${h.preference}) ${h.addresses.join(' ') || (mxUnread(h) ? 'could not check its address' : 'no address')}`;
  let text = r.mx.hosts.map(hostText).join('; ') || 'none';
  if (r.mx.null_mx) text = 'null MX: accepts no mail';
  if (unread && r.mx.hosts.length === 0) text = 'could not check';
  return `MX      ${unread ? UNREAD : mark(r.mx.is_valid)}  ${text}\n${findings(r.mx.errors, '!')}`;
}

/** What the SPF block says of the record: none, too many, or the record and its lookups. */
function spfText(spf: DomainAuthResult['spf'], unread: boolean): string {
  if (spf.record_count === 0) return unread ? 'could not check' : 'no v=spf1 record';
  if (spf.record_count > 1) return `${spf.record_count} v=spf1 records (RFC 7208 allows one)`;
  return `${spf.raw} (${spf.dns_lookup_count} of 10 DNS lookups${unread ? '; could not check every lookup' : ''})`;
}

function spfBlock(r: DomainAuthResult): string {
  const spf = r.spf;
  const unread = r.record_status.spf === 'temperror';
  return (
    `SPF     ${unread ? UNREAD : mark(spf.is_valid)}  ${spfText(spf, unread)}\n` +
    findings(spf.validation_errors, '!') +
    findings(spf.warnings, '-')
  );
}

/** One DKIM selector: its key (type, size, testing, revoked), no key, or could not check. */
function dkimLine(k: DomainAuthResult['dkim'][number], unread: boolean): string {
  if (!k.found)
    return `DKIM    ${unread ? UNREAD : '--  '}  ${k.selector}: ${unread ? 'could not check' : 'no key'}\n`;
  const what = `${k.key_type ?? 'unknown key type'}${k.key_bits ? ` ${k.key_bits} bits` : ''}${k.testing ? ', testing' : ''}${k.revoked ? ', revoked' : ''}`;
  return `DKIM    ${mark(k.is_valid)}  ${k.selector}: ${what}\n`;
}

function dkimBlock(r: DomainAuthResult): string {
  let out = '';
  for (const k of r.dkim) {
    out += dkimLine(k, r.record_status.dkim[k.selector] === 'temperror');
    out += findings(k.validation_errors, '!');
  }
  // Default selectors are listed only when found, or when they could not be checked.
  for (const [selector, status] of Object.entries(r.record_status.dkim)) {
    if (status === 'temperror' && !r.dkim.some((k) => k.selector === selector))
      out += `DKIM    ${UNREAD}  ${selector}: could not check\n`;
  }
  return out;
}

function dmarcBlock(r: DomainAuthResult): string {
  const d = r.dmarc;
  const unread = r.record_status.dmarc === 'temperror';
  let what = unread ? 'could not check' : 'no record';
  if (d.found)
    what =
      `p=${d.policy} (${d.strength_rating})${d.inherited ? ` from ${d.record_domain}` : ''}, ` +
      `reports to ${d.aggregate_report_uris.join(' ') || 'nobody'}`;
  return (
    `DMARC   ${unread ? UNREAD : mark(d.is_valid)}  ${what}\n` +
    findings(d.validation_errors, '!') +
    findings(d.warnings, '-')
  );
}

/** The mark of an ungraded record: ok, FAIL, -- (none published) or ?? (could not check). */
function policyMark(x: { status: string; is_valid: boolean }): string {
  if (x.status === 'temperror') return UNREAD;
  return x.status === 'absent' ? '--  ' : mark(x.is_valid);
}

function mtaStsLine(m: DomainAuthResult['mta_sts']): string {
  if (m.status !== 'found') return m.status === 'absent' ? 'no _mta-sts record' : 'could not check';
  const p = m.policy;
  if (!p?.fetched) return `id ${m.id ?? '?'}; policy not fetched`;
  return `id ${m.id ?? '?'}; mode ${p.mode ?? '?'}, mx ${p.mx.join(' ') || 'none'}, max_age ${p.max_age ?? '?'}`;
}

/** MTA-STS, TLS-RPT and BIMI: one line each with their problems (they earn no points). */
function policyBlocks(r: DomainAuthResult): string {
  const { mta_sts: m, tls_rpt: t, bimi: b } = r;
  const policyErrors = (m.policy?.errors ?? []).map((e) => `policy: ${e}`);
  const tlsText =
    t.status === 'found'
      ? `reports to ${t.rua.join(' ') || 'nobody'}`
      : t.status === 'absent'
        ? 'no _smtp._tls record'
        : 'could not check';
  let bimiText = b.status === 'absent' ? 'no default._bimi record' : 'could not check';
  if (b.status === 'found')
    bimiText = b.declined
      ? 'declined (empty l=)'
      : `logo ${b.logo_url ?? 'none'}, VMC ${b.authority_url ?? 'none'}`;
  return (
    `MTA-STS ${policyMark(m)}  ${mtaStsLine(m)}\n${findings([...m.errors, ...policyErrors], '!')}${findings(m.warnings, '-')}` +
    `TLS-RPT ${policyMark(t)}  ${tlsText}\n${findings(t.errors, '!')}${findings(t.warnings, '-')}` +
    `BIMI    ${policyMark(b)}  ${bimiText}\n${findings(b.errors, '!')}${findings(b.warnings, '-')}`
  );
}

/** The DNS work (lookups, time, deadline, budget), then each query that could not be checked. */
function dnsFooter(r: DomainAuthResult, resolvers?: string): string {
  const dns = r.dns;
  let out = `\n${dns.lookups} DNS lookups in ${dns.elapsed_ms} ms`;
  if (dns.deadline_exceeded) out += ', some cut off by the deadline';
  if (dns.budget_exhausted) out += ', lookup budget spent';
  if (r.unchecked.length === 0) return `${out}\n`;
  out += `\nCould not check ${r.unchecked.length} quer${r.unchecked.length === 1 ? 'y' : 'ies'}${resolvers ? ` through ${resolvers}` : ''}:\n`;
  return out + r.unchecked.map((u) => `  ${u.query}: ${dnsFailureLabel(u.error)}\n`).join('');
}

/**
 * The report: one block per record (verdict, what was found, each problem), then the advice.
 * A record that could not be read is marked `??` and says "could not check", never "none".
 */
export function formatDomainReport(r: DomainAuthResult, resolvers?: string): string {
  let out = `${r.domain}: grade ${r.grade} (score ${r.score}/100)\n`;
  if (!r.complete) {
    out +=
      `incomplete: could not check ${uncheckedRecords(r).join(', ') || 'every lookup'}; ` +
      'the grade counts only the records that could be read\n';
  }
  out += `\n${mxBlock(r)}${spfBlock(r)}${dkimBlock(r)}${dmarcBlock(r)}${policyBlocks(r)}`;
  if (r.recommendations.length > 0)
    out += `\nRecommendations\n${r.recommendations.map((x) => `  - ${x}\n`).join('')}`;
  const extra = [...r.mta_sts.recommendations, ...r.tls_rpt.recommendations, ...r.bimi.recommendations];
  if (extra.length > 0)
    out += `\nMTA-STS, TLS-RPT and BIMI (not graded)\n${extra.map((x) => `  - ${x}\n`).join('')}`;
  return out + dnsFooter(r, resolvers);
}

/** No grade from records that could not be read: the reason, the resolvers, exit 4. */
function reportUnavailable(unavailable: NonNullable<ReturnType<typeof dnsUnavailable>>, json: boolean): void {
  if (json) {
    const body = { error: unavailable.message, code: unavailable.code, ...unavailable.meta };
    process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
  }
  process.stderr.write(`${unavailable.code}: ${unavailable.message}\n`);
  process.exitCode = EXIT_DNS_UNAVAILABLE;
}

export function registerDomainCommands(program: Command): void {
  const domain = program.command('domain').description('email authentication checks of a domain');
  domain
    .command('check')
    .description(
      'check MX, SPF, DKIM and DMARC (graded), MTA-STS, TLS-RPT and BIMI of a domain and print a report (DNS via NETREP_DNS_SERVERS); ' +
        'exit 3 when some records could not be checked, 4 when none of MX, SPF and DMARC could be read',
    )
    .argument('<domain>', 'domain name')
    .option('--selector <s...>', 'DKIM selectors to try (default: a list of common ones)')
    .option('--json', 'print the answer as JSON, as GET /v1/email/domain/{domain} gives it')
    .action(async (name: string, opts: { selector?: string[]; json?: boolean }) => {
      const config = loadConfig();
      const servers = config.dnsServers;
      const dns = createDnsClient({ servers });
      try {
        const r = await checkDomain(name, {
          dns,
          clock: systemClock,
          mtaSts: { allowLoopback: config.mtaStsAllowLoopback },
          ...(opts.selector ? { selectors: normalizeSelectors(opts.selector) } : {}),
        });
        const unavailable = dnsUnavailable(r, servers);
        if (unavailable) {
          reportUnavailable(unavailable, opts.json === true);
          return;
        }
        process.stdout.write(
          opts.json ? `${JSON.stringify(r, null, 2)}\n` : formatDomainReport(r, describeResolvers(servers)),
        );
        if (!r.complete) process.exitCode = EXIT_INCOMPLETE;
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        process.stderr.write(`${err.code}: ${err.message}\n`);
        process.exitCode = 1;
      }
    });
}
