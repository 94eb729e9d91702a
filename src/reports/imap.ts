/**
 * The mailbox poller (issue #38 item 1), as parsedmarc reads a reports mailbox: each unseen
 * message of the folder in NETREP_REPORTS_IMAP_URL goes whole (its RFC 822 bytes) through the
 * same `ingest` as an upload; a stored or duplicate report's message is moved to the processed
 * folder, a refused one's to the rejected folder (the refusal kept, as for uploads). A message
 * is moved only after the store answered, so a store failure or a crash leaves it in the folder
 * for the next poll, and ingest's dedup (report id + reporter) makes that poll store nothing
 * twice. One instance polls a mailbox at a time (imap-lease.ts).
 */
import fs from 'node:fs';
import { ImapFlow, type ImapFlowOptions } from 'imapflow';
import type { Clock } from '../core/clock.ts';
import { AppError } from '../core/errors.ts';
import type { Store } from '../store/index.ts';
import { createMailboxLease } from './imap-lease.ts';
import { folderLevels, type MailboxAddress, parseMailboxUrl } from './imap-url.ts';
import { KEPT_REJECTED_BYTES, type Reports } from './index.ts';
import { createReportStore } from './store.ts';

export interface ImapSettings {
  /** NETREP_REPORTS_IMAP_URL (imap-url.ts). */
  url: string;
  /** Where stored and duplicate reports' messages go, levels separated by `/`. */
  processedFolder: string;
  /** Where refused messages go. */
  rejectedFolder: string;
  /** Messages read in one poll; the rest wait for the next. */
  maxMessages: number;
  /** A larger message is refused without being read (NETREP_REPORTS_MAX_UPLOAD_BYTES). */
  maxMessageBytes: number;
  /** Connecting, the greeting, and any silence of the server within a command. */
  timeoutMs: number;
  /** A PEM file of certificates to trust besides the system's ('' for none). */
  caFile: string;
}

export type MessageOutcome = 'stored' | 'duplicate' | 'rejected' | 'left';
export type PollOutcome = 'done' | 'busy' | 'failed';

export interface PolledMessage {
  uid: number;
  outcome: MessageOutcome;
  size: number;
  /** The stored report's id (stored, duplicate). */
  report_id: number | null;
  /** The kept refusal's id (rejected). */
  rejected_id: number | null;
  /** Why it was refused, or why it was left in the folder. */
  reason: string | null;
}

export interface PollResult {
  mailbox: string;
  outcome: PollOutcome;
  messages: PolledMessage[];
  /** Unseen messages past NETREP_REPORTS_IMAP_MAX_MESSAGES, left for the next poll. */
  remaining: number;
  error: string | null;
}

export interface ImapCounts {
  messages: Record<MessageOutcome, number>;
  polls: Record<PollOutcome, number>;
}

export interface PollLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface MailboxPoller {
  /** The URL without its password. */
  readonly mailbox: string;
  /** One poll; never throws (a failure is `outcome: 'failed'` with the error). */
  poll(stopping?: () => boolean): Promise<PollResult>;
  /** What this process's polls did since it started. */
  counts(): ImapCounts;
}

interface Deps {
  reports: Reports;
  store: Store;
  clock: Clock;
  /** The owner (a user id) the reports are stored for, asked at each poll. */
  owner: () => Promise<number>;
  settings: ImapSettings;
  /** This process's name in the lease. */
  worker: string;
  logger?: PollLogger;
}

/** What a poll holds: the connection, the folders' levels and the running tally. */
interface Run {
  client: ImapFlow;
  owner: number;
  folders: { processed: string[]; rejected: string[] };
  created: Set<string>;
  messages: PolledMessage[];
}

/** The lease outlives the longest step between two renewals (a message read, stored and moved). */
const leaseMs = (settings: ImapSettings) => Math.max(5 * 60_000, 4 * settings.timeoutMs);

function clientOptions(address: MailboxAddress, settings: ImapSettings, ca: Buffer | null): ImapFlowOptions {
  return {
    host: address.host,
    port: address.port,
    secure: address.tls === 'implicit',
    doSTARTTLS: address.tls === 'starttls',
    auth: { user: address.user, pass: address.password },
    // Node's defaults: the certificate must be valid for the host (ca adds trust, never removes checks).
    tls: ca ? { ca: [ca] } : {},
    logger: false,
    disableAutoIdle: true,
    connectionTimeout: settings.timeoutMs,
    greetingTimeout: settings.timeoutMs,
    socketTimeout: settings.timeoutMs,
    // A server that announces a larger literal than the largest message is cut off.
    maxLiteralSize: settings.maxMessageBytes + 64 * 1024,
    maxResponseSize: settings.maxMessageBytes + 128 * 1024,
    clientInfo: { name: 'netrep' },
  };
}

export function createMailboxPoller(deps: Deps): MailboxPoller {
  const { settings } = deps;
  const address = parseMailboxUrl(settings.url);
  const folders = {
    processed: folderLevels(settings.processedFolder, 'NETREP_REPORTS_IMAP_PROCESSED_FOLDER'),
    rejected: folderLevels(settings.rejectedFolder, 'NETREP_REPORTS_IMAP_REJECTED_FOLDER'),
  };
  // Read at start: a missing CA file stops the start, not each poll.
  const ca = settings.caFile ? fs.readFileSync(settings.caFile) : null;
  const lease = createMailboxLease(deps.store);
  const counts: ImapCounts = {
    messages: { stored: 0, duplicate: 0, rejected: 0, left: 0 },
    polls: { done: 0, busy: 0, failed: 0 },
  };
  const result = (outcome: PollOutcome, run: Partial<PollResult>): PollResult => {
    counts.polls[outcome]++;
    for (const m of run.messages ?? []) counts.messages[m.outcome]++;
    return { mailbox: address.name, outcome, messages: [], remaining: 0, error: null, ...run };
  };
  return {
    mailbox: address.name,
    counts: () => counts,
    async poll(stopping = () => false) {
      const messages: PolledMessage[] = [];
      let held = false;
      try {
        held = await lease.take(address.name, deps.worker, deps.clock(), leaseMs(settings));
        if (!held) return result('busy', {});
        const owner = await deps.owner();
        const client = new ImapFlow(clientOptions(address, settings, ca));
        // imapflow reports a broken connection as an 'error' event too; the command's rejection says it.
        client.on('error', () => undefined);
        const run: Run = { client, owner, folders, created: new Set(), messages };
        const remaining = await drain(
          deps,
          address,
          run,
          () => stopping() || !held,
          async () => {
            held = await lease.take(address.name, deps.worker, deps.clock(), leaseMs(settings));
          },
        );
        return result('done', { messages, remaining });
      } catch (err) {
        const error = errorText(err);
        deps.logger?.warn({ mailbox: address.name, err: error }, 'reports mailbox: poll failed');
        return result('failed', { messages, error });
      } finally {
        if (held) await lease.release(address.name, deps.worker, deps.clock()).catch(() => undefined);
      }
    },
  };
}

function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const extra = err as { code?: unknown; responseText?: unknown };
  const text = typeof extra.responseText === 'string' ? `: ${extra.responseText}` : '';
  const code = typeof extra.code === 'string' ? ` (${extra.code})` : '';
  return `${err.message}${text}${code}`;
}

/** Connects, reads up to maxMessages unseen messages oldest first, logs out; the unseen left. */
async function drain(
  deps: Deps,
  address: MailboxAddress,
  run: Run,
  stopping: () => boolean,
  renew: () => Promise<void>,
): Promise<number> {
  const { client } = run;
  await client.connect();
  try {
    const lock = await client.getMailboxLock(address.folder);
    try {
      const unseen = (await client.search({ seen: false }, { uid: true })) || [];
      const uids = [...unseen].sort((a, b) => a - b);
      let handled = 0;
      for (const uid of uids.slice(0, deps.settings.maxMessages)) {
        await renew();
        if (stopping()) break;
        const message = await readOne(deps, run, uid);
        handled++;
        if (!message) continue;
        run.messages.push(message);
        deps.logger?.info(
          { mailbox: address.name, ...message },
          `reports mailbox: message ${message.outcome}`,
        );
        // The store failed: the next messages would fail alike; they wait for the next poll.
        if (message.outcome === 'left') throw new Error(`the store failed: ${message.reason}`);
      }
      return uids.length - handled;
    } finally {
      lock.release();
    }
  } finally {
    await client.logout().catch(() => client.close());
  }
}

/** One message: read, ingested, moved; `left` (not moved) when the store failed, null when it is gone. */
async function readOne(deps: Deps, run: Run, uid: number): Promise<PolledMessage | null> {
  const head = await run.client.fetchOne(String(uid), { uid: true, size: true }, { uid: true });
  // Expunged since the search (another client): nothing to do.
  if (!head) return null;
  const size = head.size ?? 0;
  const message =
    size > deps.settings.maxMessageBytes
      ? await refuseLarge(deps, run, uid, size)
      : await ingestOne(deps, run, uid, size);
  if (message.outcome === 'left') return message;
  await moveTo(run, uid, message.outcome === 'rejected' ? run.folders.rejected : run.folders.processed);
  return message;
}

const outcomeOf = (uid: number, size: number) => ({
  uid,
  size,
  report_id: null,
  rejected_id: null,
  reason: null,
});

/** A store failure (anything but a refusal of the report) as the message's `left` outcome. */
function left(uid: number, size: number, err: unknown): PolledMessage {
  return { ...outcomeOf(uid, size), outcome: 'left', reason: errorText(err) };
}

async function ingestOne(deps: Deps, run: Run, uid: number, size: number): Promise<PolledMessage> {
  const fetched = await run.client.fetchOne(String(uid), { uid: true, source: true }, { uid: true });
  const source = fetched ? fetched.source : undefined;
  if (!source) throw new Error(`message ${uid}: the server sent no content`);
  try {
    const stored = await deps.reports.ingest(run.owner, source, 'message/rfc822');
    return {
      ...outcomeOf(uid, size),
      outcome: stored.duplicate ? 'duplicate' : 'stored',
      report_id: stored.id,
    };
  } catch (err) {
    const rejectedId = err instanceof AppError ? err.meta?.rejected_id : undefined;
    if (typeof rejectedId !== 'number') return left(uid, size, err);
    return {
      ...outcomeOf(uid, size),
      outcome: 'rejected',
      rejected_id: rejectedId,
      reason: (err as Error).message,
    };
  }
}

/** A message over the cap is not read: its first 256 KiB are kept with the reason, as an upload's. */
async function refuseLarge(deps: Deps, run: Run, uid: number, size: number): Promise<PolledMessage> {
  const fetched = await run.client.fetchOne(
    String(uid),
    { uid: true, source: { start: 0, maxLength: KEPT_REJECTED_BYTES } },
    { uid: true },
  );
  const raw = (fetched ? fetched.source : undefined) ?? Buffer.alloc(0);
  const reason = `the message is ${size} bytes, over NETREP_REPORTS_MAX_UPLOAD_BYTES (${deps.settings.maxMessageBytes})`;
  try {
    const id = await createReportStore(deps.store).reject({
      owner_id: run.owner,
      reason,
      content_type: 'message/rfc822',
      size,
      raw: raw.subarray(0, KEPT_REJECTED_BYTES).toString('base64'),
      raw_truncated: 1,
      received_at: deps.clock(),
    });
    return { ...outcomeOf(uid, size), outcome: 'rejected', rejected_id: id, reason };
  } catch (err) {
    return left(uid, size, err);
  }
}

/** Moves one message, creating the folder the first time this poll needs it. */
async function moveTo(run: Run, uid: number, folder: string[]): Promise<void> {
  const key = folder.join('/');
  if (!run.created.has(key)) {
    // ALREADYEXISTS is `created: false`, not an error.
    await run.client.mailboxCreate(folder);
    run.created.add(key);
  }
  const moved = await run.client.messageMove(String(uid), folder, { uid: true });
  if (!moved) throw new Error(`message ${uid} could not be moved to ${key}`);
}
