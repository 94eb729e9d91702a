/**
 * `netrep scan IP [--json]` (issue #34 item 4): scans one address now with the NETREP_SCAN_*
 * settings (ports, timeouts, contact, exclusions; loopback only with the test setting) and prints
 * the three fields and how each port ended: refused, timed out, not HTTP. Outside the queue and
 * its TTL, nothing stored. With NETREP_SCAN off nothing is ever scanned, this command included
 * (an operator tries the settings with `NETREP_SCAN=on netrep scan IP`). A refused address exits 1
 * without a packet sent.
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import { parseIp } from '../core/ip.ts';
import { type PortResult, type ScanReport, scanOnce, scanSettingsOf } from '../scan/index.ts';
import { fail } from './context.ts';

function version(): string {
  const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

function portLine(p: PortResult): string {
  const what =
    p.status === null
      ? (p.detail ?? p.outcome)
      : `HTTP ${p.status}${p.redirect_host ? ` → ${p.redirect_host} (not followed)` : ''}`;
  const tls = p.tls ? `; certificate ${p.tls.valid ? 'valid' : `not valid (${p.tls.reason})`}` : '';
  const cut = p.truncated ? '; read stopped at 64 KiB' : '';
  return `  ${`${p.port}/${p.protocol}`.padEnd(10)} ${p.outcome.padEnd(16)} ${what}${tls}${cut} (${p.elapsed_ms} ms)`;
}

function reportText(r: ScanReport): string {
  const field = (name: string, v: string | null) => `${name.padEnd(17)} ${v ?? '-'}`;
  return [
    `${r.ip}: ${r.status}${r.reason ? ` (${r.reason})` : ''}`,
    field('service_title', r.service_title),
    field('service_server', r.service_server),
    field('tls_organization', r.tls_organization),
    'ports:',
    ...r.ports.map(portLine),
    '',
  ].join('\n');
}

export function registerScanCommand(program: Command): void {
  program
    .command('scan')
    .description('scan one address now (NETREP_SCAN_* settings): page title, Server header, TLS organisation')
    .argument('<ip>', 'IPv4 or IPv6 address')
    .option('--json', 'print the report as JSON')
    .action(async (raw: string, opts: { json?: boolean }) => {
      const ip = parseIp(raw);
      if (!ip) fail(`invalid IP address: ${JSON.stringify(raw.slice(0, 100))}`);
      const config = loadConfig();
      if (!config.scan)
        fail('NETREP_SCAN is off, so nothing is scanned; to try the settings: NETREP_SCAN=on netrep scan IP');
      const r = await scanOnce(scanSettingsOf(config, version()), ip.address, systemClock).catch(
        (err: Error) => fail(err.message),
      );
      if ('refused' in r) {
        if (opts.json) process.stdout.write(`${JSON.stringify({ ip: ip.address, refused: r.refused })}\n`);
        fail(`not scanned: ${r.refused}`);
      }
      process.stdout.write(opts.json ? `${JSON.stringify(r.report)}\n` : reportText(r.report));
    });
}
