import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, it } from 'vitest';
import { verifySignature } from '../../src/webhooks/index.ts';
import { netrepStoreEnv } from '../helpers/netrep-env.ts';
import { runNetrep, startNetrep } from '../helpers/process.ts';
import { STORE_KINDS, skipStore } from '../helpers/stores.ts';

const until = async (what: string, ok: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

// The two stores' tests run side by side (#33 item 5): each waits out the 20 s claim of the killed
// process (DELIVERY_LEASE_MS) doing nothing, so the waits overlap instead of adding up.
describe.concurrent.each(STORE_KINDS)('SIGKILL during a webhook delivery (%s)', (kind) => {
  const skip = skipStore(kind);
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it.skipIf(skip)(
    'the event is delivered after the restart, same event id',
    // The test's own expect: the two stores' tests run at once.
    async ({ expect }) => {
      const received: { eventId: string; signature: string; body: string }[] = [];
      let answer = false;
      const receiver = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          received.push({
            eventId: String(req.headers['x-netrep-event-id']),
            signature: String(req.headers['x-netrep-signature']),
            body: Buffer.concat(chunks).toString(),
          });
          // The first process never gets an answer: it is killed while waiting for one.
          if (answer) res.end();
        });
      });
      await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
      cleanups.push(() => {
        receiver.closeAllConnections();
        return new Promise<void>((r) => receiver.close(() => r()));
      });

      const { env: base } = await netrepStoreEnv(kind, cleanups);
      const env = {
        ...base,
        NETREP_DNS_SERVERS: '127.0.0.1:9',
        NETREP_WEBHOOK_ALLOW_PRIVATE: 'true',
      };
      const server = await startNetrep(env);
      cleanups.push(() => server.stop());
      const made = runNetrep(
        ['keys', 'create', '--name', 'hooks', '--tier', 'pro', '--permissions', 'ip:read'],
        env,
      );
      expect(made.status, made.stderr).toBe(0);
      const key = made.stdout.trim().split('\n').at(-1) ?? '';
      const api = (path: string, body: unknown) =>
        fetch(`${server.url}${path}`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }).then((r) => r.json() as Promise<{ data: Record<string, unknown> }>);
      const port = (receiver.address() as AddressInfo).port;
      const hook = (await api('/v1/webhooks', { url: `http://127.0.0.1:${port}/hook` })).data;
      const ping = (await api(`/v1/webhooks/${hook.id}/test`, {})).data;
      expect(ping.event_id).toMatch(/^[0-9a-f-]{36}$/);

      await until('the first attempt', () => received.length === 1, 15_000);
      server.child.kill('SIGKILL');
      await new Promise((r) => (server.child.exitCode !== null ? r(null) : server.child.once('exit', r)));
      expect(server.child.signalCode).toBe('SIGKILL');

      answer = true;
      const worker = await startNetrep(env, 60_000, 'worker');
      cleanups.push(() => worker.stop());
      await until('the delivery after the restart', () => received.length >= 2, 60_000);
      const [first, second] = received as [(typeof received)[0], (typeof received)[0]];
      expect(second.eventId).toBe(ping.event_id);
      expect(first.eventId).toBe(ping.event_id);
      expect(verifySignature(String(hook.secret), second.signature, second.body)).toBe(true);
      expect(JSON.parse(second.body)).toMatchObject({ id: ping.event_id, entity_type: 'ping' });
    },
    // Two process starts on a loaded machine, and the 20 s claim to wait out.
    240_000,
  );
});
