/**
 * Reads the upstream files of shared/data on their own terms, without netrep's importers, so
 * that the source agreement suite compares the service's answers with what the file itself
 * says. Addresses go through ipaddr.js (not core/ip.ts); CSV through csv-parse. Each reader is
 * deliberately plain: the format's documented fields, nothing inferred.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { parse as parseCsv } from 'csv-parse/sync';
import ipaddr from 'ipaddr.js';

export interface TruthRange {
  family: 4 | 6;
  start: bigint;
  end: bigint;
  /** The row as the file wrote it (for reports). */
  text: string;
  /** Excluded (rbldnsd `!` line): the range is carved out of the listing. */
  exclude?: boolean;
  country?: string | null;
  /** RIR row: the registry; IANA row: the designated RIR. */
  rir?: string;
  /** ROA. */
  asn?: number;
  maxLength?: number;
  prefixLength?: number;
}

export interface TruthFile {
  ranges: TruthRange[];
  asns: number[];
  /** AS classification files: the class the file gives each ASN (`Transit/Access`, `Content`, `Enterprise`). */
  asClass?: Map<number, string>;
}

function toBig(addr: ipaddr.IPv4 | ipaddr.IPv6): bigint {
  let v = 0n;
  for (const b of addr.toByteArray()) v = (v << 8n) | BigInt(b);
  return v;
}

/** An IP, CIDR or `a-b` range as an inclusive range; null when it is none of them. */
export function rangeOf(text: string): Omit<TruthRange, 'text'> | null {
  const t = text.trim();
  try {
    if (t.includes('-')) {
      const [a, b] = t.split('-').map((x) => ipaddr.parse(x.trim()));
      if (!a || !b || a.kind() !== b.kind()) return null;
      return { family: a.kind() === 'ipv4' ? 4 : 6, start: toBig(a), end: toBig(b) };
    }
    if (t.includes('/')) {
      const [addr, len] = ipaddr.parseCIDR(t);
      const bits = addr.kind() === 'ipv4' ? 32 : 128;
      const v = toBig(addr);
      const host = (1n << BigInt(bits - len)) - 1n;
      const start = v & ~host & ((1n << BigInt(bits)) - 1n);
      return { family: bits === 32 ? 4 : 6, start, end: start | host, prefixLength: len };
    }
    const a = ipaddr.parse(t);
    const v = toBig(a);
    return { family: a.kind() === 'ipv4' ? 4 : 6, start: v, end: v };
  } catch {
    return null;
  }
}

function push(out: TruthRange[], text: string, extra: Partial<TruthRange> = {}): void {
  const r = rangeOf(text);
  if (r) out.push({ ...r, text: text.trim(), ...extra });
}

const lines = (file: string) => readFileSync(file, 'latin1').split(/\r?\n/);
const json = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
const ndjson = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x) => typeof x === 'string') : []);

/** The IANA designation as an RIR name, or null (IANA itself, reserved, legacy holders). */
function ianaRir(designation: string): string | null {
  const d = designation.toUpperCase();
  if (d.startsWith('RIPE')) return 'RIPE';
  for (const r of ['ARIN', 'APNIC', 'LACNIC', 'AFRINIC']) if (d.startsWith(r)) return r;
  return null;
}

/** An ISO 3166-1 alpha-2 code, or null (RFC 8805 leaves it empty; some feeds write `None`). */
const cc = (v: string | undefined): string | null => {
  const t = (v ?? '').trim().toUpperCase();
  return /^[A-Z]{2}$/.test(t) ? t : null;
};

/** Reads one upstream file by its format name (sources.ts `format`). */
export function readTruth(file: string, format: string): TruthFile {
  const ranges: TruthRange[] = [];
  const asns: number[] = [];
  switch (format) {
    case 'plain':
      for (const l of lines(file)) {
        const t =
          l
            .replace(/[#;].*$/, '')
            .trim()
            .split(/\s+/)[0] ?? '';
        if (t) push(ranges, t);
      }
      break;
    case 'tor-exit':
      for (const l of lines(file)) {
        const m = /^ExitAddress\s+(\S+)/.exec(l);
        if (m?.[1]) push(ranges, m[1]);
      }
      break;
    case 'aws': {
      const d = json(file);
      for (const p of (d.prefixes as { ip_prefix: string }[]) ?? []) push(ranges, p.ip_prefix);
      for (const p of (d.ipv6_prefixes as { ipv6_prefix: string }[]) ?? []) push(ranges, p.ipv6_prefix);
      break;
    }
    case 'google': {
      const d = json(file);
      for (const p of (d.prefixes as { ipv4Prefix?: string; ipv6Prefix?: string }[]) ?? [])
        push(ranges, p.ipv4Prefix ?? p.ipv6Prefix ?? '');
      break;
    }
    case 'azure': {
      const d = json(file);
      for (const v of (d.values as { properties: { addressPrefixes: string[] } }[]) ?? [])
        for (const p of v.properties.addressPrefixes) push(ranges, p);
      break;
    }
    case 'oracle': {
      const d = json(file);
      for (const r of (d.regions as { cidrs: { cidr: string }[] }[]) ?? [])
        for (const c of r.cidrs) push(ranges, c.cidr);
      break;
    }
    case 'fastly': {
      const d = json(file);
      for (const p of [...strings(d.addresses), ...strings(d.ipv6_addresses)]) push(ranges, p);
      break;
    }
    case 'github': {
      // Every list of address ranges in meta.json (hooks, web, api, actions, …).
      const d = json(file);
      for (const v of Object.values(d))
        for (const p of strings(v)) if (p.includes('/') && !p.includes(' ')) push(ranges, p);
      break;
    }
    case 'cloud-ips': {
      const d = json(file);
      for (const p of [...strings(d.IPv4Prefixes), ...strings(d.IPv6Prefixes)]) push(ranges, p);
      break;
    }
    case 'geofeed-csv': {
      const text = readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => !l.startsWith('#'))
        .join('\n');
      for (const row of parseCsv(text, { relax_column_count: true, skip_empty_lines: true }) as string[][])
        push(ranges, row[0] ?? '', { country: cc(row[1]) });
      break;
    }
    case 'vultr-json': {
      const d = json(file);
      for (const s of (d.subnets as { ip_prefix: string; alpha2code: string }[]) ?? [])
        push(ranges, s.ip_prefix, { country: cc(s.alpha2code) });
      break;
    }
    case 'drop-text':
      for (const l of lines(file)) {
        const t = l.split(';')[0]?.trim() ?? '';
        if (t) push(ranges, t);
      }
      break;
    case 'drop-json':
      for (const o of ndjson(file)) if (typeof o.cidr === 'string') push(ranges, o.cidr);
      break;
    case 'asndrop-json':
      for (const o of ndjson(file)) if (typeof o.asn === 'number') asns.push(o.asn);
      break;
    case 'asn-list':
      for (const l of lines(file)) {
        const m = /^\s*AS(\d+)/i.exec(l);
        if (m) asns.push(Number(m[1]));
      }
      break;
    case 'ip4set':
      // rbldnsd ip4set: `$`/`:` directives, `#` comments, `!` exclusions, then one entry a line.
      for (const l of lines(file)) {
        if (/^\s*($|[#$:])/.test(l)) continue;
        const exclude = l.startsWith('!');
        const t = (exclude ? l.slice(1) : l).trim().split(/\s+/)[0] ?? '';
        if (t === '127.0.0.2') continue; // the RFC 5782 test record
        push(ranges, t, exclude ? { exclude: true } : {});
      }
      break;
    case 'rir':
      for (const l of lines(file)) {
        const f = l.split('|');
        const [registry, cc, type, start, value, , status] = f;
        if (f.length < 7 || (type !== 'ipv4' && type !== 'ipv6') || start === '*') continue;
        if (status !== 'allocated' && status !== 'assigned') continue;
        const rir = ianaRir((registry ?? '').replace('ripencc', 'ripe')) ?? '';
        const country = cc && /^[A-Z]{2}$/.test(cc) ? cc : null;
        if (type === 'ipv4') {
          const r = rangeOf(start ?? '');
          if (r) ranges.push({ ...r, end: r.start + BigInt(value ?? '1') - 1n, text: l, rir, country });
        } else push(ranges, `${start}/${value}`, { rir, country });
      }
      break;
    case 'iana': {
      for (const row of parseCsv(readFileSync(file, 'utf8'), { columns: true }) as Record<string, string>[]) {
        const rir = ianaRir(row.Designation ?? '');
        if (!rir) continue;
        const p = (row.Prefix ?? '').replace(/^0*(\d+)\/8$/, '$1.0.0.0/8');
        push(ranges, p, { rir });
      }
      break;
    }
    case 'rpki-json': {
      const raw = readFileSync(file);
      const text = raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw;
      const d = JSON.parse(text.toString('utf8')) as {
        roas: { asn: number | string; prefix: string; maxLength: number }[];
      };
      for (const r of d.roas) {
        const asn = typeof r.asn === 'number' ? r.asn : Number(String(r.asn).replace(/^AS/i, ''));
        push(ranges, r.prefix, { asn, maxLength: r.maxLength });
      }
      break;
    }
    case 'spys-proxy':
      // spys.me: `IP:PORT CC-ANONYMITY...` lines; everything else is header or banner text.
      for (const l of lines(file)) {
        const m = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+\s+[A-Z]{2}-[NAH]/.exec(l.trim());
        if (m?.[1]) push(ranges, m[1]);
      }
      break;
    case 'ip-port':
      for (const l of lines(file)) {
        const m = /^(\d{1,3}(?:\.\d{1,3}){3})(?::\d+)?$/.exec(l.trim());
        if (m?.[1]) push(ranges, m[1]);
      }
      break;
    case 'netset':
      for (const l of lines(file)) if (l.trim() && !l.startsWith('#')) push(ranges, l.trim());
      break;
    case 'caida-as2types': {
      const asClass = new Map<number, string>();
      for (const l of lines(file)) {
        if (l.startsWith('#')) continue;
        const [as, , type] = l.split('|');
        if (as && type) asClass.set(Number(as), type.trim());
      }
      return { ranges, asns: [...asClass.keys()], asClass };
    }
    default:
      throw new Error(`no truth reader for format ${format}`);
  }
  return { ranges, asns };
}

/** The npm ip-location-db CSVs (start,end,value…): ASN rows and country rows. */
export function readNpmCsv(file: string, kind: 'asn' | 'country'): TruthRange[] {
  const out: TruthRange[] = [];
  for (const row of parseCsv(readFileSync(file, 'utf8'), { relax_column_count: true }) as string[][]) {
    const a = rangeOf(row[0] ?? '');
    const b = rangeOf(row[1] ?? '');
    if (!a || !b) continue;
    out.push({
      family: a.family,
      start: a.start,
      end: b.start,
      text: row.join(','),
      ...(kind === 'asn' ? { asn: Number(row[2]) } : { country: row[2] ?? null }),
    });
  }
  return out;
}

/** The narrowest range of `ranges` holding `addr` (width = end - start), or null. */
export function narrowestCovering(
  ranges: readonly TruthRange[],
  family: 4 | 6,
  addr: bigint,
): TruthRange | null {
  let best: TruthRange | null = null;
  for (const r of ranges) {
    if (r.family !== family || r.exclude || r.start > addr || r.end < addr) continue;
    if (!best || r.end - r.start < best.end - best.start) best = r;
  }
  return best;
}

/** A seeded PRNG (mulberry32): the same seed draws the same sample on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Up to n distinct items, drawn without replacement with `random`. */
export function sample<T>(items: readonly T[], n: number, random: () => number): T[] {
  const a = [...items];
  const k = Math.min(n, a.length);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(random() * (a.length - i));
    [a[i], a[j]] = [a[j] as T, a[i] as T];
  }
  return a.slice(0, k);
}

/** A seeded address inside [start, end]. */
export function addressIn(r: { start: bigint; end: bigint }, random: () => number): bigint {
  const span = r.end - r.start + 1n;
  let x = 0n;
  for (let i = 0; i < 5; i++) x = (x << 32n) | BigInt(Math.floor(random() * 4294967296));
  return r.start + (x % span);
}

export function formatAddr(family: 4 | 6, v: bigint): string {
  const bytes: number[] = [];
  const n = family === 4 ? 4 : 16;
  for (let i = n - 1; i >= 0; i--) bytes.push(Number((v >> BigInt(i * 8)) & 0xffn));
  return ipaddr.fromByteArray(bytes).toString();
}
