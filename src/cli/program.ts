/** The `netrep` command line (CONTRACT §0b): one file per command group. */
import { Command } from 'commander';
import { settingsTable } from '../config.ts';
import { registerAccountCommands } from './accounts.ts';
import { registerAuditCommands } from './audit.ts';
import { registerDatasetCommands } from './dataset.ts';
import { registerDnsblCommands } from './dnsbl.ts';
import { registerDomainCommands } from './domain.ts';
import { registerFeedsCommands } from './feeds.ts';
import { registerHeadersCommands } from './headers.ts';
import { registerLookupCommand } from './lookup.ts';
import { registerServeCommands } from './serve.ts';
import { registerSummarizeCommand } from './summarize.ts';

export function createProgram(): Command {
  const program = new Command('netrep')
    .description(
      'IP intelligence, DNS blocklist, sending-IP reputation, email authentication and threat feeds',
    )
    .version('0.1.0')
    .showHelpAfterError();
  registerServeCommands(program);
  registerAccountCommands(program);
  registerDnsblCommands(program);
  registerDatasetCommands(program);
  registerLookupCommand(program);
  registerSummarizeCommand(program);
  registerDomainCommands(program);
  registerHeadersCommands(program);
  registerFeedsCommands(program);
  registerAuditCommands(program);
  program
    .command('config')
    .description('print the table of NETREP_* settings')
    .action(() => {
      process.stdout.write(`${settingsTable()}\n`);
    });
  return program;
}

export async function runCli(argv: string[]): Promise<void> {
  await createProgram().parseAsync(argv);
}
