/**
 * The lease of a polled mailbox (migration 0710): several instances may run the workers on one
 * store, and only the one holding a mailbox's lease reads it. A lease is taken by one conditional
 * update (free, expired, or already this worker's), so of two instances trying at once one wins
 * on both dialects; it is renewed between messages and given back at the end of a poll.
 */
import type { Store } from '../store/index.ts';

export interface EmailReportMailboxesTable {
  /** `imaps://user@host:993/INBOX`: the URL without its password. */
  mailbox: string;
  lease_owner: string | null;
  lease_expires_at: number | null;
  polled_at: number | null;
}

declare module '../store/schema.ts' {
  interface Database {
    email_report_mailboxes: EmailReportMailboxesTable;
  }
}

export interface MailboxLease {
  /** Takes or renews the lease of `mailbox` for `worker` until `now + ms`; false when another holds it. */
  take(mailbox: string, worker: string, now: number, ms: number): Promise<boolean>;
  /** Gives the lease back (only while `worker` holds it) and notes when the poll ended. */
  release(mailbox: string, worker: string, now: number): Promise<void>;
}

export function createMailboxLease(store: Store): MailboxLease {
  const { db } = store;
  return {
    async take(mailbox, worker, now, ms) {
      await db
        .insertInto('email_report_mailboxes')
        .values({ mailbox, lease_owner: null, lease_expires_at: null, polled_at: null })
        .onConflict((oc) => oc.column('mailbox').doNothing())
        .execute();
      const r = await db
        .updateTable('email_report_mailboxes')
        .set({ lease_owner: worker, lease_expires_at: now + ms })
        .where('mailbox', '=', mailbox)
        .where((eb) =>
          eb.or([
            eb('lease_owner', 'is', null),
            eb('lease_owner', '=', worker),
            eb('lease_expires_at', '<=', now),
          ]),
        )
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    async release(mailbox, worker, now) {
      await db
        .updateTable('email_report_mailboxes')
        .set({ lease_owner: null, lease_expires_at: null, polled_at: now })
        .where('mailbox', '=', mailbox)
        .where('lease_owner', '=', worker)
        .execute();
    },
  };
}
