/** `netrep lookup IP`: one extended answer from the newest local snapshot, as JSON. */
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import { parseIp } from '../core/ip.ts';
import { loadLatestSnapshot } from '../dataset/index.ts';
import { createIntel } from '../intel/index.ts';

export function registerLookupCommand(program: Command): void {
  program
    .command('lookup')
    .description('look up one IP in the local dataset and print the answer as JSON')
    .argument('<ip>', 'IPv4 or IPv6 address')
    .action(async (text: string) => {
      const ip = parseIp(text);
      if (!ip) {
        process.stderr.write(`INVALID_IP: ${JSON.stringify(text)} is not an IP address\n`);
        process.exitCode = 1;
        return;
      }
      const snapshot = loadLatestSnapshot(loadConfig().dataDir);
      if (!snapshot) {
        process.stderr.write('no dataset snapshot; run `netrep dataset build` first\n');
        process.exitCode = 1;
        return;
      }
      const answer = await createIntel({ snapshot, clock: systemClock }).lookupExtended(ip);
      process.stdout.write(
        `${JSON.stringify({ data: answer, meta: { dataset_version: snapshot.version } }, null, 2)}\n`,
      );
      if (!answer) process.exitCode = 2;
    });
}
