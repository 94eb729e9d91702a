/** Score computations: the history points, each address's latest score and the input stamps. */
import { utcDay } from '../core/clock.ts';
import { READ_STAMPS } from '../store/index.ts';
import type { Computation } from './history.ts';
import { type Prepared, Q } from './store-sql.ts';
import type { ComputationRecord, ReputationStore } from './store-types.ts';

/** Saves computations: a history point each and the address's latest score (one per address). */
async function saveAll(prepared: Prepared, cs: readonly ComputationRecord[]): Promise<void> {
  if (cs.length === 0) return;
  // One row per address (the last computation given wins), in a stable order so concurrent
  // writers lock rows in the same order.
  const byIp = new Map(cs.map((c) => [c.ip, c]));
  const list = [...byIp.values()].sort((a, b) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0));
  const points = list.map((c) => ({
    ip: c.ip,
    day: utcDay(c.computedAt),
    score: c.score,
    level: c.level,
    computed_at: c.computedAt,
  }));
  const latest = list.map((c) => ({
    ip: c.ip,
    subnet: c.subnet,
    score: c.score,
    computed_at: c.computedAt,
  }));
  // A computation dated before the stored one (a clock moved back) never replaces it.
  if (prepared.dialect === 'postgres') {
    await prepared.all(Q.saveBoth, [
      points.map((p) => p.ip),
      points.map((p) => p.day),
      points.map((p) => p.score),
      points.map((p) => p.level),
      points.map((p) => p.computed_at),
      latest.map((l) => l.subnet),
    ]);
    return;
  }
  await prepared.transaction([
    { sql: Q.savePoint, rows: points.map((p) => [p.ip, p.day, p.score, p.level, p.computed_at]) },
    { sql: Q.stampSubnet, rows: latest.map((l) => [l.subnet, l.subnet, l.ip, l.score]) },
    { sql: Q.saveLatest, rows: latest.map((l) => [l.ip, l.subnet, l.score, l.computed_at]) },
  ]);
}

export function createScoreRows(
  prepared: Prepared,
): Pick<
  ReputationStore,
  'stamps' | 'saveComputations' | 'historyForMany' | 'subnetScoresMany' | 'subnetScores'
> {
  return {
    async stamps(keys) {
      const out = new Map<string, number>();
      if (keys.length === 0) return out;
      const rows = await prepared.all<{ key: string; stamp: number }>(READ_STAMPS, [[...keys]]);
      for (const r of rows) out.set(r.key, Number(r.stamp));
      return out;
    },

    saveComputations: (cs) => saveAll(prepared, cs),

    async historyForMany(ips, sinceDay) {
      const out = new Map<string, Computation[]>();
      if (ips.length === 0) return out;
      const rows = await prepared.all<{ ip: string; points: string }>(Q.historyMany, [[...ips], sinceDay]);
      for (const r of rows) {
        const list: Computation[] = [];
        let at = 0;
        while (at < r.points.length) {
          const colon = r.points.indexOf(':', at);
          let comma = r.points.indexOf(',', colon);
          if (comma < 0) comma = r.points.length;
          list.push({
            score: Number(r.points.slice(at, colon)),
            computedAt: Number(r.points.slice(colon + 1, comma)),
          });
          at = comma + 1;
        }
        out.set(r.ip, list);
      }
      return out;
    },

    async subnetScoresMany(subnets) {
      const out = new Map<string, { ip: string; score: number; computedAt: number }[]>();
      if (subnets.length === 0) return out;
      const rows = await prepared.all<{ subnet: string; ip: string; score: number; computed_at: number }>(
        Q.subnetMany,
        [[...subnets]],
      );
      for (const r of rows) {
        const list = out.get(r.subnet) ?? [];
        list.push({ ip: r.ip, score: Number(r.score), computedAt: Number(r.computed_at) });
        out.set(r.subnet, list);
      }
      return out;
    },

    async subnetScores(subnet) {
      const rows = await prepared.all<{ ip: string; score: number; computed_at: number }>(Q.subnet, [subnet]);
      return rows.map((r) => ({ ip: r.ip, score: Number(r.score), computedAt: Number(r.computed_at) }));
    },
  };
}
