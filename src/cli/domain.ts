/**
 * `netrep domain check DOMAIN [--selector S]... [--json]`: the email authentication check of
 * GET /v1/email/domain/{domain} (MX, SPF, DKIM, DMARC, score and grade), through the resolvers
 * in NETREP_DNS_SERVERS, printed as a report (or the API's JSON answer with --json).
 */
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import { createDnsClient } from '../core/dns/index.ts';
import { AppError } from '../core/errors.ts';
import { checkDomain, type DomainAuthResult, normalizeSelectors } from '../emailauth/index.ts';

const mark = (ok: boolean): string => (ok ? 'ok  ' : 'FAIL');

function findings(lines: readonly string[], prefix: string): string {
  return lines.map((l) => `        ${prefix} ${l}\n`).join('');
}

/** The report: one block per record (verdict, what was found, each problem), then the advice. */
export function formatDomainReport(r: DomainAuthResult): string {
  let out = `${r.domain}: grade ${r.grade} (score ${r.score}/100)\n\n`;
  const mxHosts = r.mx.hosts.map(
    (h) => `${h.exchange} (${h.preference}) ${h.addresses.join(' ') || 'no address'}`,
  );
  out += `MX      ${mark(r.mx.is_valid)}  ${r.mx.null_mx ? 'null MX: accepts no mail' : mxHosts.join('; ') || 'none'}\n`;
  out += findings(r.mx.errors, '!');
  const spf = r.spf;
  const spfWhat =
    spf.record_count === 0
      ? 'no v=spf1 record'
      : spf.record_count > 1
        ? `${spf.record_count} v=spf1 records (RFC 7208 allows one)`
        : `${spf.raw} (${spf.dns_lookup_count} of 10 DNS lookups)`;
  out += `SPF     ${mark(spf.is_valid)}  ${spfWhat}\n`;
  out += findings(spf.validation_errors, '!') + findings(spf.warnings, '-');
  for (const k of r.dkim) {
    const what = !k.found
      ? 'no key'
      : `${k.key_type ?? 'unknown key type'}${k.key_bits ? ` ${k.key_bits} bits` : ''}${k.testing ? ', testing' : ''}${k.revoked ? ', revoked' : ''}`;
    out += `DKIM    ${k.found ? mark(k.is_valid) : '--  '}  ${k.selector}: ${what}\n`;
    out += findings(k.validation_errors, '!');
  }
  const d = r.dmarc;
  const dmarcWhat = d.found
    ? `p=${d.policy} (${d.strength_rating})${d.inherited ? ` from ${d.record_domain}` : ''}, ` +
      `reports to ${d.aggregate_report_uris.join(' ') || 'nobody'}`
    : 'no record';
  out += `DMARC   ${mark(d.is_valid)}  ${dmarcWhat}\n`;
  out += findings(d.validation_errors, '!') + findings(d.warnings, '-');
  if (r.recommendations.length > 0)
    out += `\nRecommendations\n${r.recommendations.map((x) => `  - ${x}\n`).join('')}`;
  const dns = r.dns;
  out += `\n${dns.lookups} DNS lookups in ${dns.elapsed_ms} ms`;
  if (dns.deadline_exceeded) out += ', some cut off by the deadline';
  if (dns.budget_exhausted) out += ', lookup budget spent';
  return `${out}\n`;
}

export function registerDomainCommands(program: Command): void {
  const domain = program.command('domain').description('email authentication checks of a domain');
  domain
    .command('check')
    .description('check MX, SPF, DKIM and DMARC of a domain and print a report (DNS via NETREP_DNS_SERVERS)')
    .argument('<domain>', 'domain name')
    .option('--selector <s...>', 'DKIM selectors to try (default: a list of common ones)')
    .option('--json', 'print the answer as JSON, as GET /v1/email/domain/{domain} gives it')
    .action(async (name: string, opts: { selector?: string[]; json?: boolean }) => {
      const dns = createDnsClient({ servers: loadConfig().dnsServers });
      try {
        const r = await checkDomain(name, {
          dns,
          clock: systemClock,
          ...(opts.selector ? { selectors: normalizeSelectors(opts.selector) } : {}),
        });
        process.stdout.write(opts.json ? `${JSON.stringify(r, null, 2)}\n` : formatDomainReport(r));
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        process.stderr.write(`${err.code}: ${err.message}\n`);
        process.exitCode = 1;
      }
    });
}
