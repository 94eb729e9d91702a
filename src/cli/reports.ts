/**
 * `netrep reports poll [--json]` (issue #38 item 1): one poll of the reports mailbox
 * (NETREP_REPORTS_IMAP_*) now, as the workers run it, lease included: prints what became of each
 * message. Exit 0 when the poll ran (refused reports included), 1 when it failed or no mailbox is
 * set, 2 when another instance was polling the mailbox (its lease).
 */
import type { Command } from 'commander';
import { systemClock } from '../core/clock.ts';
import type { PolledMessage, PollResult } from '../reports/imap.ts';
import { createReportsPoller } from '../worker/reports-imap.ts';
import { fail, withContext } from './context.ts';

function messageLine(m: PolledMessage): string {
  const what =
    m.outcome === 'rejected'
      ? `refusal ${m.rejected_id}: ${m.reason}`
      : m.outcome === 'left'
        ? `left in the folder: ${m.reason}`
        : `report ${m.report_id}`;
  return `  uid ${String(m.uid).padEnd(8)} ${m.outcome.padEnd(10)} ${what} (${m.size} bytes)`;
}

function pollText(r: PollResult): string {
  const head =
    r.outcome === 'busy'
      ? `${r.mailbox}: another instance is polling it (its lease); nothing read`
      : `${r.mailbox}: ${r.outcome}${r.error ? ` (${r.error})` : ''}, ${r.messages.length} messages read`;
  const rest = r.remaining > 0 ? [`${r.remaining} unseen messages wait for the next poll`] : [];
  return `${[head, ...r.messages.map(messageLine), ...rest].join('\n')}\n`;
}

export function registerReportsCommands(program: Command): void {
  const reports = program.command('reports').description("mail operators' reports (DMARC, TLS-RPT)");
  reports
    .command('poll')
    .description(
      'poll the reports mailbox (NETREP_REPORTS_IMAP_URL) once now and print what became of each message',
    )
    .option('--json', 'print the result as JSON')
    .action(async (opts: { json?: boolean }) => {
      await withContext(async ({ config, store, accounts }) => {
        const poller = createReportsPoller({ config, store, clock: systemClock, accounts });
        if (!poller) fail('NETREP_REPORTS_IMAP_URL is not set: no mailbox to poll');
        const r = await poller.poll();
        process.stdout.write(opts.json ? `${JSON.stringify(r)}\n` : pollText(r));
        if (r.outcome !== 'done') process.exitCode = r.outcome === 'busy' ? 2 : 1;
      });
    });
}
