import { afterAll, describe, expect, it } from 'vitest';
import { createManualClock, DAY_MS } from '../../src/core/clock.ts';
import { createReputation, unknownIntel } from '../../src/reputation/index.ts';
import { openStore } from '../../src/store/index.ts';
import { createTelemetry } from '../../src/telemetry/index.ts';
import { netrepStoreEnv } from '../helpers/netrep-env.ts';
import { type NetrepProcess, runNetrep, startNetrep } from '../helpers/process.ts';
import { STORE_KINDS, skipStore } from '../helpers/stores.ts';

const REQUESTS = 600;
const IN_FLIGHT = 24;
const KILL_AFTER_ACKS = 80;
const KINDS = ['pristine_trap', 'recycled_trap', 'typo_trap', 'smtp_honeypot'];

/** Requests alternate between telemetry and evidence; addresses overlap across requests. */
function requestFor(r: number, now: number) {
  const ip = (i: number) => `45.${33 + ((r + i) % 7)}.${(r * 7 + i) % 11}.${i % 13}`;
  if (r % 2 === 0) {
    return {
      path: '/v1/email/telemetry/ingest',
      body: {
        observations: Array.from({ length: 100 }, (_, i) => ({
          ip: ip(i),
          bounce_rate: ((r + i) % 9) / 100,
          volume_24h: (r * i) % 3 === 0 ? 0 : 100 + i,
          observed_at: new Date(now - ((r * 31 + i * 17) % 40) * 3_600_000).toISOString(),
        })),
      },
    };
  }
  return {
    path: '/v1/admin/evidence',
    body: {
      events: Array.from({ length: 100 }, (_, i) => ({
        ip: ip(i),
        kind: KINDS[(r + i) % 4],
        observed_at: new Date(now - ((r * 13 + i * 7) % 50) * (DAY_MS / 3)).toISOString(),
        synthetic: (r + i) % 10 === 0,
      })),
    },
  };
}

/** POSTs one request; true when it was acknowledged (200), false when the connection died with the process. */
async function postAcked(url: string, key: string, body: unknown): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status === 200) return true;
    expect(res.status, await res.text()).toBe(200);
  } catch {
    // The connection died with the process.
  }
  return false;
}

describe.each(STORE_KINDS)('SIGKILL during telemetry and evidence ingest: rollups (%s)', (kind) => {
  const skip = skipStore(kind);
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it.skipIf(skip)(
    'leaves rollups equal to a recomputation from the raw rows',
    async () => {
      const { env: base, dataDir, schema } = await netrepStoreEnv(kind, cleanups);
      const env = base;
      const server: NetrepProcess = await startNetrep(env, 120_000);
      cleanups.push(() => server.stop());
      const keyWith = (permission: string) => {
        const made = runNetrep(
          ['keys', 'create', '--name', permission, '--tier', 'enterprise', '--permissions', permission],
          env,
        );
        expect(made.status, made.stderr).toBe(0);
        return made.stdout.trim().split('\n').at(-1) ?? '';
      };
      const keys = {
        '/v1/email/telemetry/ingest': keyWith('telemetry:write'),
        '/v1/admin/evidence': keyWith('admin'),
      };

      const now = Date.now();
      let acked = 0;
      let next = 0;
      let killed = false;
      const worker = async () => {
        while (next < REQUESTS && !killed) {
          const { path, body } = requestFor(next++, now);
          if (await postAcked(`${server.url}${path}`, keys[path as keyof typeof keys], body)) acked++;
          if (acked >= KILL_AFTER_ACKS && !killed) {
            killed = true;
            server.child.kill('SIGKILL');
          }
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
      await new Promise((resolve) => {
        if (server.child.exitCode !== null || server.child.signalCode !== null) resolve(null);
        else server.child.once('exit', resolve);
      });
      expect(server.child.signalCode).toBe('SIGKILL');

      const store = openStore({
        databaseUrl: env.NETREP_DATABASE_URL,
        dataDir,
        ...(schema ? { pgSchema: schema } : {}),
      });
      cleanups.push(() => store.close());
      const clock = createManualClock(now);
      const reputation = createReputation({
        store,
        clock,
        telemetry: createTelemetry({ store, clock }),
        listings: {
          activeListing: async () => null,
          activeCountInSubnet24: async () => 0,
          listedEventsSince: async () => [],
        },
        intel: unknownIntel,
      });
      cleanups.push(() => reputation.close());
      // The kill came mid-ingest, after real writes of both kinds.
      const raw = async (table: 'telemetry_observations' | 'reputation_evidence') =>
        Number(
          (
            await store.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      expect(await raw('telemetry_observations')).toBeGreaterThan(0);
      expect(await raw('reputation_evidence')).toBeGreaterThan(0);
      expect(acked).toBeLessThan(REQUESTS);
      expect(await reputation.checkRollups()).toEqual([]);
    },
    180_000,
  );
});
