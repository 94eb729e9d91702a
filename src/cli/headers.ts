/**
 * `netrep headers analyze [--file PATH] [--json] < message.eml`: the analysis of
 * POST /v1/public/tools/header-analyzer (hops with delays, authentication results, infrastructure,
 * anomalies), hops enriched from the newest local snapshot when there is one.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import { AppError } from '../core/errors.ts';
import { loadLatestSnapshot } from '../dataset/index.ts';
import {
  type Authentication,
  analyzeHeaders,
  checkHeadersInput,
  type HeaderAnalysis,
  type ResultEntry,
} from '../headers/index.ts';
import { createIntel, ipEnrichmentOf } from '../intel/index.ts';

/** One result as a receiver writes it: `dkim=fail header.d=outlook.com (body hash did not verify)`. */
const resultLine = (r: ResultEntry) =>
  [`${r.method}=${r.result}`, ...Object.entries(r.properties).map(([k, v]) => `${k}=${v}`)].join(' ') +
  (r.reason ? ` (${r.reason})` : '');

/** Every Authentication-Results header, top-most first, with its trust and its results. */
function resultsHeadersDetails(auth: Authentication): string {
  if (auth.authentication_results.length === 0) return '';
  const trust =
    auth.trust_source === 'configured'
      ? 'NETREP_TRUSTED_AUTHSERV_IDS'
      : 'the top-most header and its authserv-id';
  let out = `\nAuthentication-Results (${auth.authentication_results.length}, top-most first; trusted: ${trust})\n`;
  auth.authentication_results.forEach((h, i) => {
    out += `  ${i + 1}. ${h.authserv_id ?? '(no authserv-id)'}  ${h.trusted ? 'trusted' : 'not trusted'}\n`;
    for (const r of h.results) out += `     ${resultLine(r)}\n`;
  });
  return out;
}

/** Every DKIM-Signature: its domain, selector and algorithm. */
function dkimSignaturesDetails(auth: Authentication): string {
  if (auth.dkim_signatures.length === 0) return '';
  let out = `\nDKIM-Signature (${auth.dkim_signatures.length})\n`;
  for (const sig of auth.dkim_signatures)
    out += `  d=${sig.domain ?? '?'} s=${sig.selector ?? '?'}${sig.algorithm ? ` a=${sig.algorithm}` : ''}\n`;
  return out;
}

/** The ARC chain: its verdict and structure, then each seal and ARC-Authentication-Results. */
function arcChainDetails(arc: Authentication['arc']): string {
  if (arc.seals.length === 0 && arc.authentication_results.length === 0) return '';
  const n = arc.instances;
  let out = `\nARC chain: ${n} instance${n === 1 ? '' : 's'}, last cv=${arc.verdict ?? '-'}; ${arc.chain_problem ?? 'structure sound'} (signatures not verified)\n`;
  for (const seal of arc.seals)
    out += `  ARC-Seal i=${seal.instance ?? '?'} cv=${seal.cv ?? '-'} d=${seal.domain ?? '?'} s=${seal.selector ?? '?'}\n`;
  for (const r of arc.authentication_results)
    out += `  ARC-Authentication-Results i=${r.instance ?? '?'} ${r.authserv_id ?? '(no authserv-id)'}: ${r.results.map((x) => `${x.method}=${x.result}`).join(' ') || '-'}\n`;
  return out;
}

/** Every Authentication-Results header with its trust, every DKIM-Signature and the ARC chain. */
function authenticationDetails(auth: Authentication): string {
  return resultsHeadersDetails(auth) + dkimSignaturesDetails(auth) + arcChainDetails(auth.arc);
}

/** The report: the hops in delivery order with their delays, then authentication and findings. */
export function formatHeaderReport(a: HeaderAnalysis): string {
  let out = `Received chain (${a.received_chain.length} hops, first hop first)\n`;
  a.received_chain.forEach((h, i) => {
    const from = [h.from_host, h.from_ip].filter(Boolean).join(' ') || '?';
    const delay = h.delay_seconds === null ? '' : `  +${h.delay_seconds}s`;
    out += `  ${i + 1}. ${from} -> ${h.by_host ?? '?'}  ${h.protocol ?? ''}  ${h.timestamp ?? 'no date'}${delay}\n`;
    if (h.asn !== null)
      out += `     AS${h.asn} ${h.asn_name ?? ''}, ${h.country ?? '??'}${h.cloud_provider ? `, ${h.cloud_provider}` : ''}\n`;
  });
  const auth = a.authentication;
  out += '\nAuthentication\n';
  out += `  SPF    ${auth.spf_result}\n`;
  out += `  DKIM   ${auth.dkim_verdict ?? auth.dkim_result}${auth.dkim_domain ? ` (d=${auth.dkim_domain}, s=${auth.dkim_selector ?? '?'})` : ''}\n`;
  out += `  DMARC  ${auth.dmarc_result ?? 'none'}${auth.dmarc_policy ? ` (policy ${auth.dmarc_policy})` : ''}\n`;
  if (auth.arc_result) out += `  ARC    ${auth.arc_result}\n`;
  out += authenticationDetails(auth);
  const inf = a.infrastructure;
  out += `\nOrigin ${inf.origin_public_ip ?? inf.origin_ip ?? 'unknown'}; From domain ${inf.from_domain ?? '-'}; Return-Path domain ${inf.return_path_domain ?? '-'}\n`;
  if (inf.x_mailer || inf.user_agent) out += `Mailer ${inf.x_mailer ?? inf.user_agent}\n`;
  out +=
    a.anomalies.length === 0
      ? '\nNo anomalies\n'
      : `\nAnomalies\n${a.anomalies.map((x) => `  - ${x}\n`).join('')}`;
  return out;
}

export function registerHeadersCommands(program: Command): void {
  const headers = program.command('headers').description('mail header analysis');
  headers
    .command('analyze')
    .description(
      'analyze the headers of a message read from stdin (or --file); hops enriched from the local snapshot',
    )
    .option('-f, --file <path>', 'read the message from a file instead of stdin')
    .option('--json', 'print the analysis as JSON, as POST /v1/public/tools/header-analyzer gives it')
    .action(async (opts: { file?: string; json?: boolean }) => {
      const text = readFileSync(opts.file ?? 0, 'utf8');
      const config = loadConfig();
      const snapshot = loadLatestSnapshot(config.dataDir);
      const intel = snapshot ? createIntel({ snapshot }) : null;
      try {
        // Only the header section is analyzed: the body starts after the first blank line.
        const head = text.split(/\r?\n\r?\n/, 1)[0] ?? '';
        const a = await analyzeHeaders(checkHeadersInput(head), {
          clock: systemClock,
          enrich: ipEnrichmentOf(() => intel),
          trustedAuthservIds: config.trustedAuthservIds,
        });
        process.stdout.write(opts.json ? `${JSON.stringify(a, null, 2)}\n` : formatHeaderReport(a));
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        process.stderr.write(`${err.code}: ${err.message}\n`);
        process.exitCode = 1;
      }
    });
}
