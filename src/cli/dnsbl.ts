/** `netrep dnsbl export --format rbldnsd|bind [--out FILE]` (CONTRACT §0b, §5). */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { createBlocklist, type Listing } from '../blocklist/index.ts';
import type { Config } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import { writeZoneExport, type ZoneExportFormat } from '../dnsbl/index.ts';
import { fail, withContext } from './context.ts';

async function* asDnsbl(listings: AsyncIterable<Listing>) {
  for await (const l of listings) yield { ip: l.ip, returnCode: l.returnCode, reason: l.reason };
}

function lookupBase(config: Config): string {
  return (config.publicUrl || `http://${config.listen}`).replace(/\/+$/, '');
}

export function registerDnsblCommands(program: Command): void {
  const dnsbl = program.command('dnsbl').description('the DNS blocklist zone');
  dnsbl
    .command('export')
    .description('write the zone of active listings for rbldnsd (combined ip4set/ip6trie) or BIND')
    .requiredOption('--format <format>', 'rbldnsd or bind')
    .option('--out <file>', 'output file (default: standard output); written atomically')
    .action(async (opts: { format: string; out?: string }) => {
      if (opts.format !== 'rbldnsd' && opts.format !== 'bind') fail('--format must be rbldnsd or bind');
      const format: ZoneExportFormat = opts.format;
      await withContext(async ({ config, store }) => {
        const blocklist = createBlocklist({ store, clock: systemClock });
        const base = lookupBase(config);
        const options = {
          format,
          zone: config.dnsblZone,
          lookupUrl: (ip: string) => `${base}/tools/blocklist?ip=${ip}`,
          now: systemClock(),
        };
        if (!opts.out) {
          const summary = await writeZoneExport(asDnsbl(blocklist.activeListings()), options, process.stdout);
          process.stderr.write(`exported ${summary.listings} listings (${format})\n`);
          return;
        }
        const target = path.resolve(opts.out);
        const temp = `${target}.${process.pid}.tmp`;
        const out = fs.createWriteStream(temp);
        try {
          const summary = await writeZoneExport(asDnsbl(blocklist.activeListings()), options, out);
          await new Promise<void>((resolve, reject) => {
            out.once('error', reject);
            out.end(resolve);
          });
          fs.renameSync(temp, target);
          process.stdout.write(`exported ${summary.listings} listings to ${target} (${format})\n`);
        } catch (err) {
          out.destroy();
          fs.rmSync(temp, { force: true });
          throw err;
        }
      });
    });
}
