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
  for (const f of [4, 6] as const) {
    const a = f === 4 ? prev.v4 : prev.v6;
    const b = f === 4 ? cur.v4 : cur.v6;
    const max = f === 4 ? 0xffffffffn : (1n << 128n) - 1n;
    let i = 0;
    let j = 0;
    let x = 0n;
    const cache = new Map<string, boolean>();
    while (x <= max && a.size > 0 && b.size > 0) {
      while (i + 1 < a.size && startOf(a, i + 1) <= x) i++;
      while (j + 1 < b.size && startOf(b, j + 1) <= x) j++;
      const na = i + 1 < a.size ? startOf(a, i + 1) : max + 1n;
      const nb = j + 1 < b.size ? startOf(b, j + 1) : max + 1n;
      const end = (na < nb ? na : nb) - 1n;
      const ra = startOf(a, i) <= x ? (a.recs[i] as number) : NO_RECORD;
      const rb = startOf(b, j) <= x ? (b.recs[j] as number) : NO_RECORD;
      const key = `${ra}:${rb}`;
      let differs = cache.get(key);
      const va = viewOf(prev, ra);
      const vb = viewOf(cur, rb);
      if (differs === undefined) {
        // A network that appears or disappears is not an ownership change.
        differs =
          ra !== NO_RECORD &&
          rb !== NO_RECORD &&
          (va.asn !== vb.asn || va.org !== vb.org || va.country !== vb.country);
        cache.set(key, differs);
      }
      if (differs) {
        const last = changes[changes.length - 1];
        if (
          last &&
          last[0] === f &&
          BigInt(last[2]) + 1n === x &&
          last[3] === va.asn &&
          last[4] === vb.asn &&
          last[5] === va.org &&
          last[6] === vb.org &&
          last[7] === va.country &&
          last[8] === vb.country
        ) {
          last[2] = end.toString();
        } else {
          changes.push([
            f,
            x.toString(),
            end.toString(),
            va.asn,
            vb.asn,
            va.org,
            vb.org,
            va.country,
            vb.country,
          ]);
        }
      }
      x = end + 1n;
    }
  }
  return { from_version: prev.version, to_version: cur.version, changed_at: cur.createdAt, changes };
}
