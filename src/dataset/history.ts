/**
 * Change history between two consecutive snapshots: every address span whose ASN,
 * organization or country differs, as one entry per span. Feeds ownership_timeline and
 * geo_stability.
 */
import { type FamilyTable, type HistoryFile, NO_RECORD, type Snapshot } from './snapshot.ts';

function startOf(t: FamilyTable, i: number): bigint {
  if (t.family === 4) return BigInt(t.starts[i] as number);
  const o = i * 4;
  return (
    (BigInt(t.starts[o] as number) << 96n) |
    (BigInt(t.starts[o + 1] as number) << 64n) |
    (BigInt(t.starts[o + 2] as number) << 32n) |
    BigInt(t.starts[o + 3] as number)
  );
}

interface View {
  asn: number | null;
  org: string | null;
  country: string | null;
}

function viewOf(s: Snapshot, rec: number): View {
  if (rec === NO_RECORD) return { asn: null, org: null, country: null };
  const r = s.records;
  const cc = r.country[rec] as number;
  return {
    asn: (r.asn[rec] as number) || null,
    org: s.strings[r.org[rec] as number] || null,
    country: cc ? String.fromCharCode(cc >> 8, cc & 255) : null,
  };
}

export function diffSnapshots(prev: Snapshot, cur: Snapshot): HistoryFile {
  const changes: HistoryFile['changes'] = [];
  for (const f of [4, 6] as const) diffFamily(prev, cur, f, changes);
  return { from_version: prev.version, to_version: cur.version, changed_at: cur.createdAt, changes };
}

type Change = HistoryFile['changes'][number];

/** Appends the changed spans of one family, walking both tables' intervals side by side. */
function diffFamily(prev: Snapshot, cur: Snapshot, f: 4 | 6, changes: Change[]): void {
  const a = f === 4 ? prev.v4 : prev.v6;
  const b = f === 4 ? cur.v4 : cur.v6;
  const max = f === 4 ? 0xffffffffn : (1n << 128n) - 1n;
  let i = 0;
  let j = 0;
  let x = 0n;
  const cache = new Map<string, boolean>();
  while (x <= max && a.size > 0 && b.size > 0) {
    i = intervalAt(a, i, x);
    j = intervalAt(b, j, x);
    const na = nextStart(a, i, max);
    const nb = nextStart(b, j, max);
    const end = (na < nb ? na : nb) - 1n;
    const ra = startOf(a, i) <= x ? (a.recs[i] as number) : NO_RECORD;
    const rb = startOf(b, j) <= x ? (b.recs[j] as number) : NO_RECORD;
    const key = `${ra}:${rb}`;
    let differs = cache.get(key);
    const va = viewOf(prev, ra);
    const vb = viewOf(cur, rb);
    if (differs === undefined) {
      differs = viewsDiffer(ra, rb, va, vb);
      cache.set(key, differs);
    }
    if (differs) recordChange(changes, f, x, end, va, vb);
    x = end + 1n;
  }
}

/** The last interval of t at or before x, searching forward from i. */
function intervalAt(t: FamilyTable, i: number, x: bigint): number {
  let k = i;
  while (k + 1 < t.size && startOf(t, k + 1) <= x) k++;
  return k;
}

/** Where the interval after i starts, max + 1 after the last one. */
function nextStart(t: FamilyTable, i: number, max: bigint): bigint {
  return i + 1 < t.size ? startOf(t, i + 1) : max + 1n;
}

/** A network that appears or disappears is not an ownership change; else ASN, org or country differ. */
function viewsDiffer(ra: number, rb: number, va: View, vb: View): boolean {
  return (
    ra !== NO_RECORD &&
    rb !== NO_RECORD &&
    (va.asn !== vb.asn || va.org !== vb.org || va.country !== vb.country)
  );
}

/** Extends the last change when this span continues it with the same views, else appends one. */
function recordChange(changes: Change[], f: 4 | 6, x: bigint, end: bigint, va: View, vb: View): void {
  const last = changes[changes.length - 1];
  if (last && continuesChange(last, f, x, va, vb)) {
    last[2] = end.toString();
    return;
  }
  changes.push([f, x.toString(), end.toString(), va.asn, vb.asn, va.org, vb.org, va.country, vb.country]);
}

/** Whether the span starting at x directly follows `last` in the same family with the same views. */
function continuesChange(last: Change, f: 4 | 6, x: bigint, va: View, vb: View): boolean {
  return (
    last[0] === f &&
    BigInt(last[2]) + 1n === x &&
    last[3] === va.asn &&
    last[4] === vb.asn &&
    last[5] === va.org &&
    last[6] === vb.org &&
    last[7] === va.country &&
    last[8] === vb.country
  );
}
