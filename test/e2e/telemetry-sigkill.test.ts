import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import { netrepStoreEnv } from '../helpers/netrep-env.ts';
import { type NetrepProcess, runNetrep, startNetrep } from '../helpers/process.ts';
import { STORE_KINDS, skipStore } from '../helpers/stores.ts';

const REQUESTS = 600;
const IN_FLIGHT = 24;
const KILL_AFTER_ACKS = 60;

function batchFor(r: number) {
  return {
    observations: Array.from({ length: 100 }, (_, i) => ({
      ip: `45.${33 + (r % 50)}.${Math.floor(r / 50)}.${i}`,
      bounce_rate: 0.01,
      complaint_rate: 0.0001,
      volume_24h: 100_000 + r,
    })),
  };
}

/** Sends batch `r`; true when it was acknowledged whole, false when the connection died with the process. */
async function ingestAcked(base: string, key: string, r: number): Promise<boolean> {
  try {
    const res = await fetch(`${base}/v1/email/telemetry/ingest`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(batchFor(r)),
    });
    if (res.status === 200) {
      const body = (await res.json()) as { data: { accepted: number } };
      expect(body.data.accepted).toBe(100);
      return true;
    }
  } catch {
    // The connection died with the process.
  }
  return false;
}

describe.each(STORE_KINDS)('SIGKILL during telemetry ingest (%s)', (kind) => {
  const skip = skipStore(kind);
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it.skipIf(skip)(
    'leaves only whole batches',
    async () => {
      const { env: base, dataDir, schema } = await netrepStoreEnv(kind, cleanups);
      const env = base;
      const server: NetrepProcess = await startNetrep(env);
      cleanups.push(() => server.stop());
      const made = runNetrep(
        ['keys', 'create', '--name', 'ingest', '--tier', 'enterprise', '--permissions', 'telemetry:write'],
        env,
      );
      expect(made.status, made.stderr).toBe(0);
      const key = made.stdout.trim().split('\n').at(-1) ?? '';

      const acked = new Set<number>();
      let next = 0;
      let killed = false;
      const worker = async () => {
        while (next < REQUESTS && !killed) {
          const r = next++;
          if (await ingestAcked(server.url, key, r)) acked.add(r);
          if (acked.size >= KILL_AFTER_ACKS && !killed) {
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
      const groups = await store.db
        .selectFrom('telemetry_observations')
        .select(['volume_24h', sql<number>`count(*)`.as('n')])
        .groupBy('volume_24h')
        .execute();
      const counts = new Map(groups.map((g) => [Number(g.volume_24h) - 100_000, Number(g.n)]));
      for (const [r, n] of counts) expect(n, `batch ${r}`).toBe(100);
      for (const r of acked) expect(counts.has(r), `acknowledged batch ${r}`).toBe(true);
      // The kill really happened mid-ingest: requests were still unsent or unanswered.
      expect(acked.size).toBeLessThan(REQUESTS);
      expect(counts.size).toBeLessThan(REQUESTS);
    },
    120_000,
  );
});
