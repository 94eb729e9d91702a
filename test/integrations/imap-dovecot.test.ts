/**
 * The reports mailbox poller (issue #38 item 1) against a real Dovecot on 127.0.0.1, on both
 * stores: the .eml samples of ../shared/data/email/dmarc (and XML samples wrapped as attachments)
 * appended with IMAP APPEND, one poll drains the folder (each report stored once, the messages
 * moved to the processed or rejected folder, a refusal kept with its reason), a second poll stores
 * nothing, a store outage leaves every message where it was, one instance polls at a time, and
 * the URL's TLS forms (imaps, STARTTLS required, starttls=off) do what they say.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.ts';
import { createMailboxPoller } from '../../src/reports/imap.ts';
import { createReports } from '../../src/reports/index.ts';
import type { Store } from '../../src/store/index.ts';
import { createReportsPoller } from '../../src/worker/reports-imap.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { TEST_POSTGRES_URL } from '../helpers/backends.ts';
import { type DovecotServer, dovecotAvailable, startDovecot } from '../helpers/dovecot.ts';
import { runNetrep } from '../helpers/process.ts';
import { sharedDataPath } from '../helpers/shared-data.ts';
import { createTestStore, STORE_KINDS, type StoreKind, skipStore, tempDir } from '../helpers/stores.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';

const SAMPLES = sharedDataPath('email', 'dmarc');
const available = dovecotAvailable('imap-dovecot');

/** The .eml samples and what each becomes: [kind, source_format]. */
const EML: Record<string, [string, string]> = {
  'aggregate/Report_domain-_borschow.com_Submitter-_google.com_Report-ID-_949348866075514174.eml': [
    'aggregate',
    'eml>zip>xml',
  ],
  'aggregate/mimecast-weird-gzip.eml': ['aggregate', 'eml>gzip>xml'],
  'aggregate/twilight.eml': ['aggregate', 'eml>zip>xml'],
  'failure/DMARC_Failure_Report_for_domain.de__mail-from_sharepoint_domain.de__ip_10.10.10.10_.eml': [
    'failure',
    'eml>arf',
  ],
  'failure/Netease_DMARC_Failure_Report__Rent_Reminder.eml': ['failure', 'eml>arf'],
  'failure/dmarc_ruf_report_linkedin.eml': ['failure', 'eml>arf'],
  'failure/exim_plain_text_only_no_arf_part.eml': ['failure', 'eml>text'],
  'smtp_tls/google.com_smtp_tls_report.eml': ['tls', 'eml>gzip>json'],
};

const sample = (file: string) => fs.readFileSync(path.join(SAMPLES, file));

/** An XML sample as a report message's attachment, as a reporter mails it. */
function wrapped(file: string): Buffer {
  const name = path.basename(file);
  const body = sample(file).toString('base64').replace(/.{76}/g, '$&\r\n');
  return Buffer.from(
    [
      'From: dmarc-reports@reporter.example',
      'To: dmarc@example.com',
      `Subject: Report domain: example.com; ${name}`,
      `Message-ID: <${crypto.randomBytes(6).toString('hex')}@reporter.example>`,
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b"',
      '',
      '--b',
      'Content-Type: text/plain',
      '',
      'The report is attached.',
      '--b',
      `Content-Type: application/xml; name="${name}"`,
      `Content-Disposition: attachment; filename="${name}"`,
      'Content-Transfer-Encoding: base64',
      '',
      body,
      '--b--',
      '',
    ].join('\r\n'),
  );
}

const PLAIN_MAIL = Buffer.from(
  'From: someone@example.org\r\nTo: dmarc@example.com\r\nSubject: hello\r\n\r\nNot a report.\r\n',
);

/**
 * A store that cannot be written: PostgreSQL behind a TCP proxy that is cut, SQLite with another
 * connection holding the write lock (writes fail SQLITE_BUSY after the 5 s busy timeout).
 */
async function storeOutage(kind: StoreKind): Promise<{ store: Store; end(): Promise<void> }> {
  if (kind === 'postgres') {
    const u = new URL(TEST_POSTGRES_URL);
    const proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port || 5432) });
    u.host = `127.0.0.1:${proxy.port}`;
    const handle = await createTestStore('postgres', { postgresUrl: u.toString() });
    proxy.cut();
    return {
      store: handle.store,
      async end() {
        proxy.restore();
        await handle.cleanup();
        await proxy.close();
      },
    };
  }
  const handle = await createTestStore('sqlite');
  const lock = new SqliteDatabase(path.join(handle.dataDir, 'netrep.sqlite'));
  lock.exec('BEGIN EXCLUSIVE');
  return {
    store: handle.store,
    async end() {
      lock.exec('ROLLBACK');
      lock.close();
      await handle.cleanup();
    },
  };
}

describe.skipIf(!available)('reports mailbox poller on Dovecot', () => {
  let dovecot: DovecotServer;
  let dir: string;
  let admin: ImapFlow;

  beforeAll(async () => {
    dir = tempDir('netrep-dovecot-');
    dovecot = await startDovecot(dir);
    admin = imapClient();
    await admin.connect();
  }, 30_000);
  afterAll(async () => {
    await admin?.logout().catch(() => undefined);
    await dovecot?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  function imapClient(): ImapFlow {
    const client = new ImapFlow({
      host: '127.0.0.1',
      port: dovecot.imapsPort,
      secure: true,
      auth: { user: dovecot.user, pass: dovecot.password },
      tls: { ca: [fs.readFileSync(dovecot.certFile)] },
      logger: false,
    });
    client.on('error', () => undefined);
    return client;
  }

  const credentials = () =>
    `${encodeURIComponent(dovecot.user)}:${encodeURIComponent(dovecot.password)}@127.0.0.1`;
  const imapsUrl = (folder: string) => `imaps://${credentials()}:${dovecot.imapsPort}/${folder}`;

  /** A folder of its own for each test, with its processed and rejected folders under it. */
  async function folderWith(messages: Buffer[], flags: string[] = []): Promise<string> {
    const folder = `t${crypto.randomBytes(4).toString('hex')}`;
    await admin.mailboxCreate(folder);
    for (const m of messages) await admin.append(folder, m, flags);
    return folder;
  }

  async function count(folder: string): Promise<number> {
    const status = await admin.status(folder, { messages: true }).catch(() => false as const);
    return status ? (status.messages ?? 0) : 0;
  }

  async function counts(folder: string) {
    return {
      inbox: await count(folder),
      processed: await count(`${folder}/processed`),
      rejected: await count(`${folder}/rejected`),
    };
  }

  describe.each(STORE_KINDS)('%s', (kind) => {
    const skip = skipStore(kind);
    let t: TestApp;
    let owner: number;
    const ownerEmail = 'reports-owner@example.test';

    beforeAll(async () => {
      if (skip) return;
      t = await createTestApp(kind, { config: { reportsImapOwner: ownerEmail } });
      owner = await t.user(ownerEmail);
    }, 30_000);
    afterAll(async () => {
      await t?.close();
    });

    /** The poller of `folder` as the workers build it, with settings over the app's. */
    function pollerOf(folder: string, settings: Partial<Config> = {}, url = imapsUrl(folder)) {
      const poller = createReportsPoller({
        config: {
          ...t.app.config,
          reportsImapUrl: url,
          reportsImapCaFile: dovecot.certFile,
          reportsImapProcessedFolder: `${folder}/processed`,
          reportsImapRejectedFolder: `${folder}/rejected`,
          reportsImapTimeoutMs: 5000,
          ...settings,
        },
        store: t.app.store,
        clock: t.clock,
        accounts: t.app.services.accounts,
      });
      if (!poller) throw new Error('no poller');
      return poller;
    }

    const storedCount = async () => (await t.app.services.reports.list(owner, 1, 0)).total;

    it.skipIf(skip)(
      'drains the folder once: each report stored once, refusals kept, every message moved',
      async () => {
        const files = Object.keys(EML);
        const messages = [
          ...files.map(sample),
          wrapped('aggregate/example.com_1538204542_1538463818.xml'),
          wrapped('aggregate/invalid_xml.xml'),
          PLAIN_MAIL,
        ];
        const folder = await folderWith(messages);
        const before = await storedCount();
        const poller = pollerOf(folder);
        const r = await poller.poll();
        expect([r.outcome, r.error, r.remaining]).toEqual(['done', null, 0]);
        expect(r.messages.map((m) => m.outcome)).toEqual([
          ...files.map(() => 'stored'),
          'stored',
          'rejected',
          'rejected',
        ]);
        expect(await counts(folder)).toEqual({ inbox: 0, processed: 9, rejected: 2 });
        expect(await storedCount()).toBe(before + 9);
        for (const [i, file] of files.entries()) {
          const id = r.messages[i]?.report_id as number;
          const report = await t.app.services.reports.get(owner, id);
          expect([report?.kind, report?.source_format], file).toEqual(EML[file]);
        }
        const xml = await t.app.services.reports.get(owner, r.messages[8]?.report_id as number);
        expect(xml?.source_format).toBe('eml>xml');

        // The refusals are kept with their reason and bytes, as an upload's.
        const refused = (await t.app.services.reports.rejections(owner, 2, 0)).items;
        expect(refused.map((x) => x.id).sort()).toEqual(
          [r.messages[9]?.rejected_id, r.messages[10]?.rejected_id].sort(),
        );
        expect(r.messages[9]?.reason).toMatch(/^XML: Tag 'bad-xml@bad-xml.net' is an invalid name/);
        for (const x of refused) {
          expect(x.content_type).toBe('message/rfc822');
          expect(Buffer.from(x.raw_base64, 'base64').toString()).toMatch(/^From: /);
        }

        // A second poll finds nothing; the same report mailed again is a duplicate, moved as stored.
        expect((await poller.poll()).messages).toEqual([]);
        await admin.append(folder, sample(files[0] as string));
        await admin.append(folder, wrapped('aggregate/invalid_utf_8.xml'));
        const again = await poller.poll();
        expect(again.messages.map((m) => [m.outcome, m.report_id])).toEqual([
          ['duplicate', r.messages[0]?.report_id],
          ['duplicate', r.messages[8]?.report_id],
        ]);
        expect(await storedCount()).toBe(before + 9);
        expect(await counts(folder)).toEqual({ inbox: 0, processed: 11, rejected: 2 });
        expect(poller.counts().messages).toEqual({ stored: 9, duplicate: 2, rejected: 2, left: 0 });
      },
      60_000,
    );

    it.skipIf(skip)(
      'leaves every message in the folder while the store fails',
      async () => {
        const folder = await folderWith([sample('aggregate/twilight.eml'), PLAIN_MAIL]);
        const before = await storedCount();
        const outage = await storeOutage(kind);
        try {
          // The whole store away: the lease cannot be taken, the mailbox is not even opened.
          const gone = createReportsPoller({
            config: {
              ...t.app.config,
              reportsImapUrl: imapsUrl(folder),
              reportsImapCaFile: dovecot.certFile,
            },
            store: outage.store,
            clock: t.clock,
            accounts: t.app.services.accounts,
          });
          const r1 = await gone?.poll();
          expect([r1?.outcome, r1?.messages]).toEqual(['failed', []]);
          // The lease taken, the report's write failing: the first message is left, the poll stops.
          const failing = createMailboxPoller({
            reports: createReports({ store: outage.store, clock: t.clock, maxDecodedBytes: 1 << 24 }),
            store: t.app.store,
            clock: t.clock,
            owner: async () => owner,
            settings: {
              url: imapsUrl(folder),
              processedFolder: `${folder}/processed`,
              rejectedFolder: `${folder}/rejected`,
              maxMessages: 10,
              maxMessageBytes: 1 << 20,
              timeoutMs: 5000,
              caFile: dovecot.certFile,
            },
            worker: 'failing-worker',
          });
          const r2 = await failing.poll();
          expect(r2.outcome).toBe('failed');
          expect(r2.messages.map((m) => m.outcome)).toEqual(['left']);
          expect(r2.error).toMatch(/^the store failed: /);
          expect(await counts(folder)).toEqual({ inbox: 2, processed: 0, rejected: 0 });
          expect(await storedCount()).toBe(before);
        } finally {
          await outage.end();
        }
        // The store back: the next poll takes both, nothing was lost.
        const r3 = await pollerOf(folder).poll();
        // (stored, or a duplicate when an earlier test of this store stored the same sample)
        expect(r3.messages.map((m) => m.outcome.replace('duplicate', 'stored'))).toEqual([
          'stored',
          'rejected',
        ]);
        expect(await counts(folder)).toEqual({ inbox: 0, processed: 1, rejected: 1 });
      },
      60_000,
    );

    it.skipIf(skip)(
      'stores nothing twice after a crash between the store and the move',
      async () => {
        const bytes = sample('smtp_tls/google.com_smtp_tls_report.eml');
        const folder = await folderWith([bytes]);
        // What a poll that stopped right after the store wrote the report left behind.
        const first = await t.app.services.reports.ingest(owner, bytes, 'message/rfc822');
        const before = await storedCount();
        const r = await pollerOf(folder).poll();
        expect(r.messages.map((m) => [m.outcome, m.report_id])).toEqual([['duplicate', first.id]]);
        expect(await storedCount()).toBe(before);
        expect(await counts(folder)).toEqual({ inbox: 0, processed: 1, rejected: 0 });
      },
      60_000,
    );

    it.skipIf(skip)(
      'bounds a poll: messages per poll, message size; seen messages are left alone',
      async () => {
        const big = Buffer.concat([PLAIN_MAIL, Buffer.alloc(300 * 1024, 'x')]);
        const folder = await folderWith([big, sample('aggregate/twilight.eml'), PLAIN_MAIL]);
        await admin.append(folder, sample('aggregate/mimecast-weird-gzip.eml'), ['\\Seen']);
        const poller = pollerOf(folder, { reportsImapMaxMessages: 2, reportsMaxUploadBytes: 200 * 1024 });
        const r1 = await poller.poll();
        expect([r1.outcome, r1.remaining]).toEqual(['done', 1]);
        expect(r1.messages.map((m) => m.outcome)).toEqual(['rejected', 'duplicate']);
        expect(r1.messages[0]?.reason).toBe(
          `the message is ${big.length} bytes, over NETREP_REPORTS_MAX_UPLOAD_BYTES (204800)`,
        );
        const kept = (await t.app.services.reports.rejections(owner, 1, 0)).items[0];
        expect([kept?.id, kept?.size, kept?.raw_truncated]).toEqual([
          r1.messages[0]?.rejected_id,
          big.length,
          true,
        ]);
        expect(Buffer.from(kept?.raw_base64 ?? '', 'base64').length).toBe(256 * 1024);
        const r2 = await poller.poll();
        expect([r2.remaining, r2.messages.map((m) => m.outcome)]).toEqual([0, ['rejected']]);
        // The \Seen message stays: someone read it, the poller does not take it.
        expect(await counts(folder)).toEqual({ inbox: 1, processed: 1, rejected: 2 });
      },
      60_000,
    );

    it.skipIf(skip)(
      'lets one instance poll a mailbox at a time',
      async () => {
        const folder = await folderWith([sample('aggregate/twilight.eml')]);
        const a = pollerOf(folder);
        const b = pollerOf(folder);
        const [ra, rb] = await Promise.all([a.poll(), b.poll()]);
        expect([ra.outcome, rb.outcome].sort()).toEqual(['busy', 'done']);
        expect(await counts(folder)).toEqual({ inbox: 0, processed: 1, rejected: 0 });
        // The lease is given back at the end of a poll.
        expect((await b.poll()).outcome).toBe('done');
      },
      60_000,
    );

    it.skipIf(skip)(
      'runs in the workers and counts on /metrics',
      async () => {
        const folder = await folderWith([sample('failure/dmarc_ruf_report_linkedin.eml'), PLAIN_MAIL]);
        const app = await createTestApp(kind, {
          handle: t.handle,
          config: {
            reportsImapUrl: imapsUrl(folder),
            reportsImapCaFile: dovecot.certFile,
            reportsImapOwner: ownerEmail,
            reportsImapProcessedFolder: `${folder}/processed`,
            reportsImapRejectedFolder: `${folder}/rejected`,
          },
        });
        try {
          const r = await app.app.reportsImap.runOnce();
          // Stored, or a duplicate when the first test stored the same sample for this owner.
          const first = r?.messages[0]?.outcome as string;
          expect([first === 'stored' || first === 'duplicate', r?.messages[1]?.outcome]).toEqual([
            true,
            'rejected',
          ]);
          const metrics = (await app.app.http.inject({ method: 'GET', url: '/metrics' })).body;
          expect(metrics).toContain(`netrep_reports_imap_messages_total{outcome="${first}"} 1`);
          expect(metrics).toContain('netrep_reports_imap_messages_total{outcome="rejected"} 1');
          expect(metrics).toContain('netrep_reports_imap_polls_total{outcome="done"} 1');
          expect(await counts(folder)).toEqual({ inbox: 0, processed: 1, rejected: 1 });
        } finally {
          await app.close();
        }
      },
      60_000,
    );
  });

  describe('TLS forms of the URL (SQLite)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp('sqlite');
      await t.user('reports-owner@example.test');
    }, 30_000);
    afterAll(async () => {
      await t?.close();
    });

    const poll = async (folder: string, url: string, settings: Partial<Config> = {}) =>
      await createReportsPoller({
        config: {
          ...t.app.config,
          reportsImapUrl: url,
          reportsImapOwner: 'reports-owner@example.test',
          reportsImapProcessedFolder: `${folder}/processed`,
          reportsImapRejectedFolder: `${folder}/rejected`,
          reportsImapTimeoutMs: 5000,
          ...settings,
        },
        store: t.app.store,
        clock: t.clock,
        accounts: t.app.services.accounts,
      })?.poll();

    it('imap:// upgrades with STARTTLS; starttls=off reads in plain text', async () => {
      const folder = await folderWith([PLAIN_MAIL, PLAIN_MAIL]);
      const base = `imap://${credentials()}:${dovecot.imapPort}/${folder}`;
      // TLS after STARTTLS: without the CA the certificate is refused, nothing is read.
      const refused = await poll(folder, base);
      expect([refused?.outcome, refused?.error]).toEqual([
        'failed',
        expect.stringMatching(/self-signed certificate/),
      ]);
      const r1 = await poll(folder, base, { reportsImapCaFile: dovecot.certFile, reportsImapMaxMessages: 1 });
      expect([r1?.outcome, r1?.messages.length]).toEqual(['done', 1]);
      // starttls=off: no TLS at all, so no certificate to check.
      const r2 = await poll(folder, `${base}?starttls=off`);
      expect([r2?.outcome, r2?.messages.length]).toEqual(['done', 1]);
      expect(await count(folder)).toBe(0);
    }, 30_000);

    it('refuses a certificate it cannot verify, and leaves the mail alone', async () => {
      const folder = await folderWith([PLAIN_MAIL]);
      const r = await poll(folder, imapsUrl(folder));
      expect(r?.outcome).toBe('failed');
      expect(r?.error).toMatch(/self-signed certificate/);
      expect(await count(folder)).toBe(1);
    }, 30_000);

    it('never sends the password to a server that offers no STARTTLS', async () => {
      const heard: string[] = [];
      const fake = net.createServer((socket) => {
        socket.write('* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN] fake ready\r\n');
        socket.on('data', (d) => {
          heard.push(d.toString());
          const tag = d.toString().split(' ')[0];
          socket.write(`${tag} OK [CAPABILITY IMAP4rev1 AUTH=PLAIN] done\r\n`);
        });
        socket.on('error', () => undefined);
      });
      await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
      const port = (fake.address() as net.AddressInfo).port;
      try {
        const r = await poll('INBOX', `imap://${credentials()}:${port}/INBOX`);
        expect(r?.outcome).toBe('failed');
        expect(heard.join('')).not.toContain(dovecot.password);
        expect(heard.join('')).not.toMatch(/LOGIN|AUTHENTICATE/i);
      } finally {
        fake.close();
      }
    }, 30_000);

    it('netrep reports poll: one poll now, what became of each message', async () => {
      const folder = await folderWith([sample('aggregate/twilight.eml'), PLAIN_MAIL]);
      const env = {
        NETREP_DATA_DIR: t.handle.dataDir,
        NETREP_DATABASE_URL: '',
        NETREP_REPORTS_IMAP_URL: imapsUrl(folder),
        NETREP_REPORTS_IMAP_CA_FILE: dovecot.certFile,
        NETREP_REPORTS_IMAP_OWNER: 'reports-owner@example.test',
        NETREP_REPORTS_IMAP_PROCESSED_FOLDER: `${folder}/processed`,
        NETREP_REPORTS_IMAP_REJECTED_FOLDER: `${folder}/rejected`,
      };
      const r = runNetrep(['reports', 'poll'], env);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain(
        `imaps://dmarc-reports@127.0.0.1:${dovecot.imapsPort}/${folder}: done, 2 messages read`,
      );
      expect(r.stdout).not.toContain(dovecot.password);
      expect(r.stdout).toMatch(/uid 1 +stored +report \d+/);
      expect(r.stdout).toMatch(/uid 2 +rejected +refusal \d+: /);
      const again = runNetrep(['reports', 'poll', '--json'], env);
      expect(JSON.parse(again.stdout)).toMatchObject({ outcome: 'done', messages: [], remaining: 0 });
      const unset = runNetrep(['reports', 'poll'], { ...env, NETREP_REPORTS_IMAP_URL: '' });
      expect([unset.status, unset.stderr]).toEqual([
        1,
        'netrep: NETREP_REPORTS_IMAP_URL is not set: no mailbox to poll\n',
      ]);
    }, 120_000);
  });
});
