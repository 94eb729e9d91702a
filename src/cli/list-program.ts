/**
 * The list commands on their own (`netrep lookup`, `netrep summarize`). main.ts runs them through
 * this program instead of program.ts, so they load the dataset and intel modules only, not the
 * server's (which takes seconds under tsx, longer than looking up 10,000 addresses).
 */
import { Command } from 'commander';
import { registerLookupCommand } from './lookup.ts';
import { registerSummarizeCommand } from './summarize.ts';

export async function runCli(argv: string[]): Promise<void> {
  const program = new Command('netrep').showHelpAfterError();
  registerLookupCommand(program);
  registerSummarizeCommand(program);
  await program.parseAsync(argv);
}
