/**
 * `netrep headers analyze [--file PATH] [--json] < message.eml`: the analysis of
 * POST /v1/email/headers/analyze (hops with delays, authentication results, infrastructure,
 * anomalies), hops enriched from the newest local snapshot when there is one.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import { AppError } from '../core/errors.ts';
import { loadLatestSnapshot } from '../dataset/index.ts';
import { analyzeHeaders, checkHeadersInput, type HeaderAnalysis } from '../headers/index.ts';
import { createIntel, ipEnrichmentOf } from '../intel/index.ts';

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
    .option('--json', 'print the analysis as JSON, as POST /v1/email/headers/analyze gives it')
    .action(async (opts: { file?: string; json?: boolean }) => {
      const text = readFileSync(opts.file ?? 0, 'utf8');
      const snapshot = loadLatestSnapshot(loadConfig().dataDir);
      const intel = snapshot ? createIntel({ snapshot }) : null;
      try {
        // Only the header section is analyzed: the body starts after the first blank line.
        const head = text.split(/\r?\n\r?\n/, 1)[0] ?? '';
        const a = await analyzeHeaders(checkHeadersInput(head), {
          clock: systemClock,
          enrich: ipEnrichmentOf(() => intel),
        });
        process.stdout.write(opts.json ? `${JSON.stringify(a, null, 2)}\n` : formatHeaderReport(a));
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        process.stderr.write(`${err.code}: ${err.message}\n`);
        process.exitCode = 1;
      }
    });
}
