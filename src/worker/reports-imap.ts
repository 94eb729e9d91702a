/**
 * Polls the reports mailbox (NETREP_REPORTS_IMAP_URL, issue #38 item 1) in `serve` and `worker`:
 * a poll every NETREP_REPORTS_IMAP_INTERVAL_SECONDS (the first 10 s after the start), one at a
 * time; after a failed poll the next ones are skipped so the wait doubles with each failure in a
 * row, up to an hour. Several instances share the mailbox through its lease (only one reads it).
 * Also the mailbox poller's counters on /metrics.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import { Counter, type Registry } from 'prom-client';
import type { Accounts } from '../accounts/index.ts';
import type { Config } from '../config.ts';
import type { Clock } from '../core/clock.ts';
import {
  createMailboxPoller,
  type ImapCounts,
  type MailboxPoller,
  type PollResult,
} from '../reports/imap.ts';
import { createReports, type ReportAlerts } from '../reports/index.ts';
import type { Store } from '../store/index.ts';
import { schedule, serialPass } from './schedule.ts';

export interface ReportsImapLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface ReportsImapWorker {
  /** One poll now, whatever the backoff (null when no mailbox is set). */
  runOnce(): Promise<PollResult | null>;
  stop(): Promise<void>;
}

const MAX_WAIT_MS = 3_600_000;

/** Ticks to skip after `failures` failed polls in a row: 1, 3, 7… intervals, up to an hour. */
function ticksToSkip(failures: number, intervalMs: number): number {
  if (failures === 0) return 0;
  const most = Math.max(0, Math.floor(MAX_WAIT_MS / intervalMs) - 1);
  return Math.min(2 ** Math.min(failures, 20) - 1, most);
}

function summary(r: PollResult): Record<string, number> {
  const n = { stored: 0, duplicate: 0, rejected: 0, left: 0 };
  for (const m of r.messages) n[m.outcome]++;
  return { ...n, remaining: r.remaining };
}

export function startReportsImapWorker(options: {
  poller: MailboxPoller | null;
  intervalMs: number;
  scheduled: boolean;
  logger?: ReportsImapLogger;
}): ReportsImapWorker {
  const { poller, logger } = options;
  if (!poller) return { runOnce: async () => null, stop: async () => undefined };
  let failures = 0;
  let skip = 0;
  let polling = false;
  const pass = serialPass(
    async (stopping) => {
      polling = true;
      const r = await poller.poll(stopping).finally(() => {
        polling = false;
      });
      failures = r.outcome === 'failed' ? failures + 1 : 0;
      skip = ticksToSkip(failures, options.intervalMs);
      if (r.outcome !== 'busy' && (r.messages.length > 0 || r.outcome === 'failed'))
        logger?.info({ mailbox: r.mailbox, outcome: r.outcome, ...summary(r) }, 'reports mailbox polled');
      return r;
    },
    // The schedule below starts the passes; this one only keeps them one at a time.
    { intervalMs: options.intervalMs, enabled: false, onError: () => undefined },
  );
  const timer = schedule(
    () => {
      // A tick while a poll runs is not counted: the poll is what the tick would start.
      if (pass.stopping() || polling) return;
      if (skip > 0) {
        skip--;
        return;
      }
      pass.runOnce().catch((err) => logger?.warn({ err }, 'reports mailbox poll failed'));
    },
    {
      intervalMs: options.intervalMs,
      firstDelayMs: Math.min(10_000, options.intervalMs),
      enabled: options.scheduled,
    },
  );
  return {
    runOnce: () => pass.runOnce(),
    async stop() {
      timer.cancel();
      await pass.stop();
    },
  };
}

/** A counter by outcome read from `counts()` at each scrape (none while the poller is off). */
function outcomeCounter(
  registry: Registry,
  name: string,
  help: string,
  read: () => Record<string, number> | undefined,
): void {
  new Counter({
    name,
    help,
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [outcome, n] of Object.entries(read() ?? {})) this.inc({ outcome }, n);
    },
  });
}

export function registerReportsImapMetrics(
  registry: Registry,
  counts: () => ImapCounts | null,
  alertCounts: () => { checks: number; events: number; failures: number },
): void {
  outcomeCounter(
    registry,
    'netrep_reports_imap_messages_total',
    'Messages the mailbox poller read, by outcome: stored, duplicate (stored before; moved as stored), rejected (refusal kept, moved to the rejected folder), left (the store failed; the message stays for the next poll)',
    () => counts()?.messages,
  );
  outcomeCounter(
    registry,
    'netrep_reports_imap_polls_total',
    'Polls of the reports mailbox by outcome: done, busy (another instance held the mailbox lease), failed (connection, login, folder, move or store; each logged)',
    () => counts()?.polls,
  );
  outcomeCounter(
    registry,
    'netrep_report_alerts_total',
    "Report alert checks of new aggregate reports (uploads and the mailbox), by outcome: checked, event (an email_domain webhook event stored for delivery), failed (the check or its emit failed; logged, and the domain's next report tries again)",
    () => {
      const c = alertCounts();
      return { checked: c.checks, event: c.events, failed: c.failures };
    },
  );
}

/**
 * NETREP_REPORTS_IMAP_OWNER's user id, or the first administrator's when it is unset; asked at
 * each poll, so a user created after the start is found.
 */
export function reportsOwner(
  accounts: Pick<Accounts, 'findUser' | 'listUsers'>,
  email: string,
): () => Promise<number> {
  return async () => {
    if (email) {
      const user = await accounts.findUser(email);
      if (!user) throw new Error(`NETREP_REPORTS_IMAP_OWNER: no user ${email}`);
      return user.id;
    }
    const admin = (await accounts.listUsers()).find((u) => u.role === 'admin');
    if (!admin) throw new Error('no administrator to store the reports for (set NETREP_REPORTS_IMAP_OWNER)');
    return admin.id;
  };
}

/** The poller of NETREP_REPORTS_IMAP_URL over the store, or null when it is unset. */
export function createReportsPoller(deps: {
  config: Config;
  store: Store;
  clock: Clock;
  accounts: Pick<Accounts, 'findUser' | 'listUsers'>;
  logger?: ReportsImapLogger;
  /** Webhook alerts of the stored aggregate reports (none from `netrep reports poll`). */
  alerts?: ReportAlerts;
}): MailboxPoller | null {
  const { config } = deps;
  if (config.reportsImapUrl === '') return null;
  return createMailboxPoller({
    reports: createReports({
      store: deps.store,
      clock: deps.clock,
      maxDecodedBytes: config.reportsMaxDecodedBytes,
      ...(deps.alerts ? { alerts: deps.alerts } : {}),
    }),
    store: deps.store,
    clock: deps.clock,
    owner: reportsOwner(deps.accounts, config.reportsImapOwner),
    settings: {
      url: config.reportsImapUrl,
      processedFolder: config.reportsImapProcessedFolder,
      rejectedFolder: config.reportsImapRejectedFolder,
      maxMessages: Math.max(1, config.reportsImapMaxMessages),
      maxMessageBytes: config.reportsMaxUploadBytes,
      timeoutMs: Math.max(1000, config.reportsImapTimeoutMs),
      caFile: config.reportsImapCaFile,
    },
    worker: `${os.hostname()}-${process.pid}-${crypto.randomBytes(3).toString('hex')}`,
    ...(deps.logger ? { logger: deps.logger } : {}),
  });
}
