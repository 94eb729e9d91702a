/**
 * The direct lookup (no tables, a search per address: lookup-direct.ts) answers what the cut
 * tables answer, on the dataset a first start builds from the npm data packages: every sampled
 * interval's first and last address, one inside it, and uniform random addresses of both families.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDataset } from '../../test/helpers/datasets.ts';
import { type ParsedIp, parseIp } from '../core/ip.ts';
import { seededRandom } from '../core/random.ts';
import { formatAddr } from '../dataset/importers/index.ts';
import { loadSnapshot, type Snapshot } from '../dataset/snapshot.ts';
import { createIntel, type Intel } from './intel.ts';

let dir: string;
let snapshot: Snapshot;
let cut: Intel;
let direct: Intel;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'netrep-direct-'));
  expect(await seedDataset(path.join(dir, 'data'), 'npm')).toBe(1);
  snapshot = loadSnapshot(path.join(dir, 'data', 'datasets', 'v1'));
  cut = createIntel({ snapshot });
  direct = createIntel({ snapshot, tables: 'direct' });
}, 300_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Interval i's first address as a bigint. */
function startOf(t: Snapshot['v4'], i: number): bigint {
  if (t.family === 4) return BigInt(t.starts[i] as number);
  let v = 0n;
  for (let k = 0; k < 4; k++) v = (v << 32n) | BigInt(t.starts[i * 4 + k] as number);
  return v;
}

/** First, last and a middle address of every `step`-th interval of a family. */
function edges(t: Snapshot['v4'], step: number): string[] {
  const top = t.family === 4 ? (1n << 32n) - 1n : (1n << 128n) - 1n;
  const out: string[] = [];
  for (let i = 0; i < t.size; i += step) {
    const lo = startOf(t, i);
    const hi = i + 1 < t.size ? startOf(t, i + 1) - 1n : top;
    out.push(formatAddr(t.family, lo), formatAddr(t.family, hi), formatAddr(t.family, lo + (hi - lo) / 2n));
  }
  return out;
}

/** Addresses where the two lookups differ (at most five). */
function disagreements(addresses: string[]): string[] {
  const wrong: string[] = [];
  for (const text of addresses) {
    const ip = parseIp(text) as ParsedIp;
    const a = cut.lookup(ip);
    const b = direct.lookup(ip);
    if (!isDeepStrictEqual(a, b))
      wrong.push(`${text}: cut ${a?.prefix ?? 'null'}, direct ${b?.prefix ?? 'null'}`);
    if (wrong.length === 5) break;
  }
  return wrong;
}

describe('direct lookup (no tables) against the cut tables', () => {
  it('agrees on the edges and middle of every 7th IPv4 and every 3rd IPv6 interval', () => {
    const v4 = edges(snapshot.v4, 7);
    const v6 = edges(snapshot.v6, 3);
    expect(v4.length).toBeGreaterThan(100_000);
    expect(v6.length).toBeGreaterThan(10_000);
    expect(disagreements(v4)).toEqual([]);
    expect(disagreements(v6)).toEqual([]);
  });

  it('agrees on 50,000 uniform random addresses of each family, and on answers with a prefix', () => {
    const rand = seededRandom(20261128);
    const word = () => Math.floor(rand() * 2 ** 32);
    const v4 = Array.from({ length: 50_000 }, () => formatAddr(4, BigInt(word())));
    // Uniform over 2000::/4, where the routed IPv6 space is.
    const v6 = Array.from({ length: 50_000 }, () => {
      const top = (BigInt(0x2000 | (word() & 0x0fff)) << 112n) | (BigInt(word() & 0xffff) << 96n);
      return formatAddr(6, top | (BigInt(word()) << 64n) | BigInt(word()));
    });
    expect(disagreements([...v4, ...v6])).toEqual([]);
    const answered = v4.filter((a) => direct.lookup(parseIp(a) as ParsedIp) !== null).length;
    expect(answered).toBeGreaterThan(10_000);
  });

  it('gives bogons and the top and bottom of both spaces the same answers', () => {
    const special = ['0.0.0.0', '10.1.2.3', '127.0.0.1', '255.255.255.255', '::', '::1', 'fe80::1'];
    special.push('2001:db8::1', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '2000::', '3fff:ffff::');
    expect(disagreements(special)).toEqual([]);
  });
});
