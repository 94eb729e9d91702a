/** The evidence rollups one ingest adds to, and the comparison the rollup check reports with. */
import { DAY_MS } from '../core/clock.ts';
import type { EvidenceKind } from './evidence.ts';
import type { EvidenceInput } from './evidence-input.ts';
import type { KindCounts } from './store-types.ts';

export const KIND_COLUMN: Record<EvidenceKind, keyof KindCounts> = {
  pristine_trap: 'pristine',
  recycled_trap: 'recycled',
  typo_trap: 'typo',
  smtp_honeypot: 'honeypot',
};

/** A row of reputation_evidence_days (store.ts names the table type after it). */
export interface RollupDayRow {
  ip: string;
  day: number;
  pristine: number;
  recycled: number;
  typo: number;
  honeypot: number;
  first_at: number;
  last_at: number;
}

/** Lines in one list and not the other, named after the table they describe. */
export function diff(expected: string[], stored: string[], table: string): string[] {
  const want = new Set(expected);
  const have = new Set(stored);
  return [
    ...[...want].filter((k) => !have.has(k)).map((k) => `${table}: missing or wrong ${k}`),
    ...[...have].filter((k) => !want.has(k)).map((k) => `${table}: unexpected ${k}`),
  ];
}

/**
 * The rollup rows one request's production events add to (synthetic events are no evidence), in
 * a stable order so concurrent writers lock rollup rows in the same order.
 */
export function rollupRows(events: readonly EvidenceInput[]) {
  const days = new Map<string, RollupDayRow>();
  const firsts = new Map<string, number>();
  for (const e of events) {
    if (e.synthetic) continue;
    const day = Math.floor(e.observedAt / DAY_MS);
    const k = `${e.ip} ${day}`;
    let row = days.get(k);
    if (row === undefined) {
      row = {
        ip: e.ip,
        day,
        pristine: 0,
        recycled: 0,
        typo: 0,
        honeypot: 0,
        first_at: e.observedAt,
        last_at: e.observedAt,
      };
      days.set(k, row);
    }
    row[KIND_COLUMN[e.kind]]++;
    row.first_at = Math.min(row.first_at, e.observedAt);
    row.last_at = Math.max(row.last_at, e.observedAt);
    firsts.set(e.ip, Math.min(firsts.get(e.ip) ?? e.observedAt, e.observedAt));
  }
  const byIp = (a: { ip: string }, b: { ip: string }) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0);
  return {
    days: [...days.values()].sort((a, b) => byIp(a, b) || a.day - b.day),
    firsts: [...firsts].map(([ip, first_at]) => ({ ip, first_at })).sort(byIp),
  };
}
