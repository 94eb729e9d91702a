/**
 * `netrep dataset export --format mmdb --out FILE`: the newest snapshot as a MaxMind DB in
 * GeoLite2-City's layout whose values are the /v1/ip answers and the API's geolocation
 * (src/dataset/export-mmdb.ts). Written to a temp file, then renamed, so a reader never sees half
 * a file; a bar with an ETA on a terminal.
 */
import { renameSync, rmSync } from 'node:fs';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { collectGarbage } from '../core/collect-garbage.ts';
import { intToIpv4, type ParsedIp } from '../core/ip.ts';
import {
  exportMmdb,
  formatAddr,
  loadLatestSnapshot,
  type MmdbExportSources,
  type Snapshot,
} from '../dataset/index.ts';
import { countryName, createIntel, geolocationOf } from '../intel/index.ts';
import { formatEta } from './build-progress.ts';

const FORMATS = ['mmdb'];

/** A ParsedIp for an address value (IPv4 as a 32-bit value). */
function parsedIpOf(family: 4 | 6, value: bigint): ParsedIp {
  const n = family === 4 ? 4 : 16;
  const bytes: number[] = new Array(n);
  for (let i = n - 1, v = value; i >= 0; i--, v >>= 8n) bytes[i] = Number(v & 255n);
  const address = family === 4 ? intToIpv4(Number(value)) : formatAddr(6, value);
  return { family, address, bytes };
}

/** The export's view of a snapshot through the lookup; `release` drops the caller's reference. */
function sourcesOf(snapshot: Snapshot, release: () => void): MmdbExportSources {
  release();
  // Loading leaves garbage V8 may keep until it next collects; the export needs the room.
  collectGarbage();
  return {
    snapshot,
    lookup() {
      const intel = createIntel({ snapshot });
      return (family, value) => intel.lookup(parsedIpOf(family, value));
    },
    geolocationOf,
    countryName,
  };
}

/** The share done and an ETA on a terminal; nothing otherwise (the summary line says it all). */
function exportProgress(stream: NodeJS.WriteStream): { update(share: number): void; stop(): void } {
  if (!stream.isTTY) return { update: () => {}, stop: () => {} };
  const started = Date.now();
  const bar = new SingleBar({
    format: 'export [{bar}] {percentage}% ETA {eta_text}',
    barsize: 20,
    stream,
    hideCursor: true,
  });
  bar.start(1000, 0, { eta_text: '--' });
  return {
    update(share) {
      const elapsed = Date.now() - started;
      const left = share >= 0.02 && elapsed >= 1000 ? (elapsed * (1 - share)) / share : null;
      bar.update(Math.round(share * 1000), { eta_text: formatEta(left) });
      // The export holds the event loop, so cli-progress's redraw timer never fires: draw now.
      bar.render();
    },
    stop: () => bar.stop(),
  };
}

export function registerDatasetExportCommand(dataset: Command): void {
  dataset
    .command('export')
    .description(
      'write the newest snapshot as a MaxMind DB in GeoLite2-City layout (values: the /v1/ip answers)',
    )
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
      // Held here only until the export takes it: the export drops the snapshot and the lookup
      // once it has read them, and their memory goes with them (exportMmdb).
      let snapshot: Snapshot | null = loadLatestSnapshot(loadConfig().dataDir);
      if (!snapshot) {
        process.stderr.write('netrep: no dataset snapshot; run `netrep dataset build` first\n');
        process.exitCode = 1;
        return;
      }
      const version = snapshot.version;
      const tmp = `${opts.out}.tmp-${process.pid}`;
      const progress = exportProgress(process.stderr);
      let r: ReturnType<typeof exportMmdb>;
      try {
        r = exportMmdb(
          () => sourcesOf(snapshot as Snapshot, () => (snapshot = null)),
          tmp,
          (share) => progress.update(share),
        );
        progress.update(1);
      } catch (err) {
        rmSync(tmp, { force: true });
        throw err;
      } finally {
        progress.stop();
      }
      renameSync(tmp, opts.out);
      const mb = (r.bytes / 1e6).toFixed(1);
      const s = ((performance.now() - started) / 1000).toFixed(1);
      process.stdout.write(
        `wrote ${opts.out}: dataset v${version}, ${r.networks} networks, ${mb} MB in ${s} s\n`,
      );
    });
}
