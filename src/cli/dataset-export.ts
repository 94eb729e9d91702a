/**
 * `netrep dataset export --format mmdb --out FILE`: the newest snapshot as a MaxMind DB whose
 * records are the /v1/ip answers (src/dataset/export-mmdb.ts). Written to a temp file, then
 * renamed, so a reader never sees half a file.
 */
import { renameSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { intToIpv4, type ParsedIp } from '../core/ip.ts';
import { exportMmdb, formatAddr, loadLatestSnapshot } from '../dataset/index.ts';
import { createIntel } from '../intel/index.ts';

const FORMATS = ['mmdb'];

/** A ParsedIp for an address value (IPv4 as a 32-bit value). */
export function parsedIpOf(family: 4 | 6, value: bigint): ParsedIp {
  const n = family === 4 ? 4 : 16;
  const bytes: number[] = new Array(n);
  for (let i = n - 1, v = value; i >= 0; i--, v >>= 8n) bytes[i] = Number(v & 255n);
  const address = family === 4 ? intToIpv4(Number(value)) : formatAddr(6, value);
  return { family, address, bytes };
}

export function registerDatasetExportCommand(dataset: Command): void {
  dataset
    .command('export')
    .description('write the newest snapshot as a MaxMind DB (records are the /v1/ip answers)')
    .option('--format <format>', `output format: ${FORMATS.join(', ')}`, 'mmdb')
    .requiredOption('--out <file>', 'file to write')
    .action((opts: { format: string; out: string }) => {
      if (!FORMATS.includes(opts.format)) {
        process.stderr.write(
          `netrep: unknown export format "${opts.format}" (have: ${FORMATS.join(', ')})\n`,
        );
        process.exitCode = 2;
        return;
      }
      const started = performance.now();
      const snapshot = loadLatestSnapshot(loadConfig().dataDir);
      if (!snapshot) {
        process.stderr.write('netrep: no dataset snapshot; run `netrep dataset build` first\n');
        process.exitCode = 1;
        return;
      }
      const intel = createIntel({ snapshot });
      const r = exportMmdb(snapshot, (family, value) => intel.lookup(parsedIpOf(family, value)));
      const tmp = `${opts.out}.tmp-${process.pid}`;
      writeFileSync(tmp, r.bytes);
      renameSync(tmp, opts.out);
      const mb = (r.bytes.length / 1e6).toFixed(1);
      const s = ((performance.now() - started) / 1000).toFixed(1);
      process.stdout.write(
        `wrote ${opts.out}: dataset v${snapshot.version}, ${r.networks} networks, ${mb} MB in ${s} s\n`,
      );
    });
}
