/**
 * Event sources on both stores: a dataset version that changes a saved IP's threat level emits
 * one `saved_ip` event (an unchanged address none, a repeated pass none); a delivery claimed by
 * a worker that died is due again after the lease with the same event id.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestStore, STORE_KINDS, skipStore, type TestStoreHandle } from '../../test/helpers/stores.ts';
import { createManualClock } from '../core/clock.ts';
import { verifySignature } from './signature.ts';
import { createEventSources } from './sources.ts';
import { createChangeLog } from './store.ts';
import type { SavedIpLookup } from './types.ts';
import { createWebhooks, DELIVERY_LEASE_MS } from './webhooks.ts';

const flags = { is_datacenter: false, is_tor_exit: false };

describe.each(STORE_KINDS)('event sources (%s)', (kind) => {
  const skip = skipStore(kind);
  let handle: TestStoreHandle;
  let server: http.Server;
  let url: string;
  const bodies: { body: string; signature: string }[] = [];

  beforeEach(async () => {
    if (skip) return;
    handle = await createTestStore(kind);
    bodies.length = 0;
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push({
          body: Buffer.concat(chunks).toString(),
          signature: String(req.headers['x-netrep-signature']),
        });
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterEach(async () => {
    await new Promise((r) => server?.close(r));
    await handle?.cleanup();
  });

  const setup = (maxAttempts = 7) => {
    const clock = createManualClock('2026-06-15T12:00:00Z');
    const answers = new Map<string, SavedIpLookup>();
    let version: number | null = 1;
    const webhooks = createWebhooks({
      store: handle.store,
      clock,
      resolveHost: async () => [],
      allowPrivate: true,
      retry: { baseMs: 1000, maxAttempts },
      random: () => 0.5,
      lookup: (ip) => answers.get(ip) ?? null,
      datasetVersion: () => version,
    });
    const sources = createEventSources({
      webhooks,
      changeLog: createChangeLog(handle.store.db),
      lookup: (ip) => answers.get(ip) ?? null,
      datasetVersion: () => version,
      clock,
    });
    return { clock, webhooks, sources, answers, setVersion: (v: number) => (version = v) };
  };

  it.skipIf(skip)('a reload that changes a saved IP’s threat level emits one saved_ip event', async () => {
    const { webhooks, sources, answers, setVersion } = setup();
    const hook = await webhooks.createHook(7, url, undefined);
    await webhooks.saveIp(7, 'pro', '45.33.32.156', null);
    await webhooks.saveIp(7, 'pro', '45.33.32.157', null);
    answers.set('45.33.32.156', { threat_level: 'low', flags });
    answers.set('45.33.32.157', { threat_level: 'low', flags });
    await sources.collect(); // version 1: the baseline, no event
    expect(await webhooks.deliverDue()).toBe(0);

    setVersion(2);
    answers.set('45.33.32.156', { threat_level: 'high', flags });
    await sources.collect();
    await sources.collect();
    expect(await webhooks.deliverDue()).toBe(1);
    expect(bodies).toHaveLength(1);
    const sent = bodies[0] as { body: string; signature: string };
    expect(verifySignature(hook.secret, sent.signature, sent.body)).toBe(true);
    expect(JSON.parse(sent.body)).toMatchObject({
      entity_type: 'saved_ip',
      source_key: 'dataset',
      entity: '45.33.32.156',
      state: {
        dataset_version: 2,
        previous: { threat_level: 'low' },
        current: { threat_level: 'high' },
      },
    });
    // A version that changes nothing sends nothing.
    setVersion(3);
    await sources.collect();
    expect(await webhooks.deliverDue()).toBe(0);
  });

  it.skipIf(skip)(
    'a saved address has its baseline when saved; a change while nobody watched sends nothing',
    async () => {
      const { webhooks, sources, answers, setVersion } = setup();
      await webhooks.createHook(7, url, undefined);
      await webhooks.createHook(8, url, undefined);
      await sources.collect(); // version 1 checked before anything is saved
      answers.set('45.33.32.156', { threat_level: 'low', flags });
      await webhooks.saveIp(7, 'pro', '45.33.32.156', null);
      expect(
        JSON.parse((await webhooks.store.savedIpStates(['45.33.32.156'])).get('45.33.32.156')?.state ?? ''),
      ).toEqual({ threat_level: 'low', flags });
      // Saved again (a new label) or by another owner: the kept state is not replaced.
      answers.set('45.33.32.156', { threat_level: 'medium', flags });
      await webhooks.saveIp(7, 'pro', '45.33.32.156', 'again');
      await webhooks.saveIp(8, 'pro', '45.33.32.156', null);
      setVersion(2);
      await sources.collect();
      expect(await webhooks.deliverDue()).toBe(2); // the first change after saving: one per owner
      expect(bodies.map((b) => JSON.parse(b.body).state.previous.threat_level)).toEqual(['low', 'low']);

      // Removed, changed while nobody watched, saved again: the new baseline is the serving answer.
      await webhooks.removeSavedIp(7, '45.33.32.156');
      await webhooks.removeSavedIp(8, '45.33.32.156');
      setVersion(3);
      answers.set('45.33.32.156', { threat_level: 'high', flags });
      await sources.collect();
      await webhooks.saveIp(7, 'pro', '45.33.32.156', null);
      setVersion(4); // the same answer as version 3
      await sources.collect();
      expect(await webhooks.deliverDue()).toBe(0);
    },
  );

  it.skipIf(skip)(
    'a delivery claimed by a worker that died is sent after the lease, same event id',
    async () => {
      const { clock, webhooks } = setup();
      const hook = await webhooks.createHook(7, url, undefined);
      const ping = await webhooks.ping(7, hook.id);
      const claimed = await webhooks.store.claimDue(clock(), clock() + DELIVERY_LEASE_MS, 10);
      expect(claimed.map((c) => c.event.id)).toEqual([ping?.event_id]);
      // The claimer is gone (SIGKILL): nobody else takes the row during its lease...
      expect(await webhooks.deliverDue()).toBe(0);
      // ...and after it the row is due again with the same event.
      clock.advance(DELIVERY_LEASE_MS);
      expect(await webhooks.deliverDue()).toBe(1);
      expect(JSON.parse((bodies[0] as { body: string }).body).id).toBe(ping?.event_id);
    },
  );

  it.skipIf(skip)('a delivery that keeps failing is dead after the last attempt', async () => {
    const { clock, webhooks } = setup(3);
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const hook = await webhooks.createHook(7, `http://127.0.0.1:${port}/`, undefined);
    const ping = await webhooks.ping(7, hook.id);
    for (let i = 0; i < 5; i++) {
      await webhooks.deliverDue();
      clock.advance(60_000);
    }
    const log = await webhooks.deliveries(7, hook.id, 10, 0);
    expect(log?.map((a) => [a.attempt, a.status, a.next_attempt_at === null])).toEqual([
      [3, 'dead', true],
      [2, 'failed', false],
      [1, 'failed', false],
    ]);
    expect(await webhooks.store.deliveryStatus(hook.id, ping?.event_id as string)).toBe('dead');
  });

  it.skipIf(skip)(
    'a blocklist event committed late under the cursor is still turned into one event',
    async () => {
      const { webhooks, sources } = setup();
      await webhooks.createHook(7, url, undefined);
      await webhooks.saveIp(7, 'pro', '45.33.32.156', null);
      const event = (id: number, ip: string) => ({
        id,
        ip,
        subnet24: null,
        action: 'listed',
        type: 'spam',
        reason: 'test',
        return_code: '127.0.0.2',
        listed_at: 1,
        expires_at: null,
        delisted_at: null,
        performed_at: 1,
        actor: 'test',
      });
      const db = handle.store.db;
      // Ids 1 and 3 commit first; 2 (the saved address) commits after the cursor passed 3.
      await db
        .insertInto('blocklist_events')
        .values([event(1, '45.33.1.1'), event(3, '45.33.1.3')])
        .execute();
      await sources.collect();
      expect(await webhooks.store.cursor('blocklist_events')).toBe(3);
      await db.insertInto('blocklist_events').values(event(2, '45.33.32.156')).execute();
      await sources.collect();
      await sources.collect();
      expect(await webhooks.deliverDue()).toBe(1);
      expect(JSON.parse((bodies[0] as { body: string }).body)).toMatchObject({
        entity: '45.33.32.156',
        source_key: 'blocklist',
      });
      expect(await webhooks.deliverDue()).toBe(0);
    },
  );
});
