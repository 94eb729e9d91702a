/** The `netrep` command line (CONTRACT §0b): one file per command group. */
import { Command } from 'commander';
import { settingsInEffect, settingsTable } from '../config.ts';
import { registerAccountCommands } from './accounts.ts';
import { registerAuditCommands } from './audit.ts';
import { registerDatasetCommands } from './dataset.ts';
import { registerDnsblCommands } from './dnsbl.ts';
import { registerDomainCommands } from './domain.ts';
import { registerFeedsCommands } from './feeds.ts';
import { registerHeadersCommands } from './headers.ts';
import { formatTable, registerLookupCommand } from './lookup.ts';
import { registerServeCommands } from './serve.ts';
import { registerSummarizeCommand } from './summarize.ts';

/** `netrep config`: one aligned row per setting; unset values show as (unset). */
export function configTable(rows: ReturnType<typeof settingsInEffect>): string {
  return formatTable([
    ['VARIABLE', 'VALUE', 'SOURCE'],
    ...rows.map((r) => [r.env, r.value === '' ? '(unset)' : r.value, r.source]),
  ]);
}

export function createProgram(): Command {
  const program = new Command('netrep')
    .description(
      'IP intelligence, DNS blocklist, sending-IP reputation, email authentication and threat feeds',
    )
    .version('0.1.0')
    // `--version` after a subcommand is that command's own (`dataset verify --version N`).
    .enablePositionalOptions()
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
    .description('print each NETREP_* setting in effect (environment, .env or default); secrets hidden')
    .option('--defaults', 'print the table of settings and their defaults (docs/configuration.md) instead')
    .action((opts: { defaults?: boolean }) => {
      process.stdout.write(opts.defaults ? `${settingsTable()}\n` : configTable(settingsInEffect()));
    });
  return program;
}

export async function runCli(argv: string[]): Promise<void> {
  await createProgram().parseAsync(argv);
}
