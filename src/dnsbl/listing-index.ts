import { AppError } from '../core/errors.ts';
import { ipWords, readIp } from '../core/ip.ts';
import type { DnsblListing, ListingValue, MutableListingIndex } from './types.ts';

/** A listing value as stored: interned, frozen, with the A answer pre-parsed for the wire. */
export interface StoredListing extends ListingValue {
  /** The return code as an unsigned 32-bit integer. */
  readonly returnCodeInt: number;
}

/** The index plus the lookups the DNS hot path uses, keyed the way query names decode. */
export interface FastListingIndex extends MutableListingIndex {
  get(ip: string): StoredListing | undefined;
  getIpv4(int: number): StoredListing | undefined;
  /** `hex` is 32 lower-case hex digits. */
  getIpv6(hex: string): StoredListing | undefined;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Strict dotted quad (the normalized IPv4 form) to uint32, or -1. */
export function ipv4TextToInt(text: string): number {
  let value = 0;
  let start = 0;
  for (let i = 0; i < 4; i++) {
    const end = i < 3 ? text.indexOf('.', start) : text.length;
    const part = decimalOctet(text, start, end);
    if (part < 0) return -1;
    value = value * 256 + part;
    start = end + 1;
  }
  return value;
}

/** `text[start, end)` as a decimal 0-255 without leading zeros, else -1. */
function decimalOctet(text: string, start: number, end: number): number {
  const n = end - start;
  if (n < 1 || n > 3 || (n > 1 && text.charCodeAt(start) === 48)) return -1;
  let v = 0;
  for (let i = start; i < end; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v > 255 ? -1 : v;
}

/**
 * An address's key: IPv4 as its unsigned integer, IPv6 as 32 hex digits (no object per
 * lookup: the IP answer cache asks for every address it serves).
 */
function keyOf(ip: string): number | string | null {
  const fast = ipv4TextToInt(ip);
  if (fast >= 0) return fast;
  if (!readIp(ip, keyScratch)) return null;
  const w = keyScratch.words;
  if (keyScratch.family === 4) return w[0] as number;
  return hex8(w[0] as number) + hex8(w[1] as number) + hex8(w[2] as number) + hex8(w[3] as number);
}

const keyScratch = ipWords();

/** A 32-bit word as 8 lower-case hex digits. */
function hex8(word: number): string {
  return (HEX[word >>> 24] as string) + HEX[(word >>> 16) & 255] + HEX[(word >>> 8) & 255] + HEX[word & 255];
}

/**
 * Open-addressing hash set of uint32 keys (linear probing, backward-shift deletion) mapping to a
 * small integer id. Two typed arrays instead of a Map: 1 M IPv4 listings cost 16 MB, no per-entry
 * objects, and no heap numbers for keys above 2^31.
 */
class Ipv4Table {
  private keys: Uint32Array;
  /** id + 1; 0 marks an empty slot. */
  private ids: Int32Array;
  private mask: number;
  private shift: number;
  count = 0;

  constructor(expected = 0, arrays?: { keys: Uint32Array; ids: Int32Array; count: number }) {
    let bits = 10;
    while (1 << bits < expected * 2) bits++;
    if (arrays) bits = Math.log2(arrays.keys.length);
    this.keys = arrays?.keys ?? new Uint32Array(1 << bits);
    this.ids = arrays?.ids ?? new Int32Array(1 << bits);
    this.count = arrays?.count ?? 0;
    this.mask = (1 << bits) - 1;
    this.shift = 32 - bits;
  }

  /** Copies of the two arrays (a memcpy each), to hand to another thread. */
  copy(): { keys: Uint32Array; ids: Int32Array; count: number } {
    return { keys: this.keys.slice(), ids: this.ids.slice(), count: this.count };
  }

  private slot(key: number): number {
    return Math.imul(key, 0x9e3779b1) >>> this.shift;
  }

  get(key: number): number {
    const { keys, ids, mask } = this;
    let i = this.slot(key);
    for (;;) {
      const id = ids[i] as number;
      if (id === 0) return -1;
      if (keys[i] === key) return id - 1;
      i = (i + 1) & mask;
    }
  }

  /** Returns the previous id or -1. */
  set(key: number, id: number): number {
    if ((this.count + 1) * 2 > this.keys.length) this.grow();
    const { keys, ids, mask } = this;
    let i = this.slot(key);
    for (;;) {
      const cur = ids[i] as number;
      if (cur === 0) {
        keys[i] = key;
        ids[i] = id + 1;
        this.count++;
        return -1;
      }
      if (keys[i] === key) {
        ids[i] = id + 1;
        return cur - 1;
      }
      i = (i + 1) & mask;
    }
  }

  /** Returns the removed id or -1. */
  delete(key: number): number {
    const { keys, ids, mask } = this;
    let i = this.slot(key);
    for (;;) {
      const cur = ids[i] as number;
      if (cur === 0) return -1;
      if (keys[i] === key) break;
      i = (i + 1) & mask;
    }
    const removed = (ids[i] as number) - 1;
    // Backward shift: pull later members of the probe run into the hole so lookups stay correct.
    let hole = i;
    let j = (i + 1) & mask;
    while (ids[j] !== 0) {
      const home = this.slot(keys[j] as number);
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        keys[hole] = keys[j] as number;
        ids[hole] = ids[j] as number;
        hole = j;
      }
      j = (j + 1) & mask;
    }
    ids[hole] = 0;
    this.count--;
    return removed;
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldIds = this.ids;
    const bits = 32 - this.shift + 1;
    this.keys = new Uint32Array(1 << bits);
    this.ids = new Int32Array(1 << bits);
    this.mask = (1 << bits) - 1;
    this.shift = 32 - bits;
    this.count = 0;
    for (let i = 0; i < oldIds.length; i++) {
      const id = oldIds[i] as number;
      if (id !== 0) this.set(oldKeys[i] as number, id - 1);
    }
  }
}

/** Interned listing values: a million listings usually share a few thousand (code, reason) pairs. */
function valueKey(listing: ListingValue): string {
  return `${listing.returnCode}\n${listing.type ?? ''}\n${listing.reason}`;
}

class ValueTable {
  readonly values: (StoredListing | undefined)[] = [];
  private refs: number[] = [];
  private byKey = new Map<string, number>();
  private free: number[] = [];

  constructor(from?: { values: (ListingValue | null)[]; refs: number[] }) {
    if (!from) return;
    from.values.forEach((v, id) => {
      if (v === null) {
        this.free.push(id);
        this.values[id] = undefined;
        return;
      }
      const value: StoredListing = Object.freeze({ ...v, returnCodeInt: validReturnCode(v.returnCode) });
      this.values[id] = value;
      this.byKey.set(valueKey(value), id);
    });
    this.refs = from.refs.slice();
  }

  copy(): { values: (ListingValue | null)[]; refs: number[] } {
    const values = this.values.map((v) =>
      v
        ? { returnCode: v.returnCode, reason: v.reason, ...(v.type === undefined ? {} : { type: v.type }) }
        : null,
    );
    return { values, refs: this.refs.slice() };
  }

  intern(listing: ListingValue): number {
    const key = valueKey(listing);
    let id = this.byKey.get(key);
    if (id === undefined) {
      const returnCodeInt = validReturnCode(listing.returnCode);
      const value: StoredListing = Object.freeze({
        returnCode: listing.returnCode,
        reason: listing.reason,
        ...(listing.type === undefined ? {} : { type: listing.type }),
        returnCodeInt,
      });
      id = this.free.pop() ?? this.values.length;
      this.values[id] = value;
      this.refs[id] = 0;
      this.byKey.set(key, id);
    }
    this.refs[id] = (this.refs[id] as number) + 1;
    return id;
  }

  release(id: number): void {
    const left = (this.refs[id] as number) - 1;
    this.refs[id] = left;
    if (left > 0) return;
    const value = this.values[id] as StoredListing;
    this.byKey.delete(valueKey(value));
    this.values[id] = undefined;
    this.free.push(id);
  }
}

/** CONTRACT §4: a return code lies in 127.0.0.0/8 and is not 127.0.0.1. */
function validReturnCode(code: string): number {
  const int = ipv4TextToInt(code);
  if (int < 0 || int >>> 24 !== 127 || int === 0x7f000001) {
    throw new AppError(
      'INVALID_PARAMETER',
      `return code must lie in 127.0.0.0/8 and not be 127.0.0.1: ${code}`,
    );
  }
  return int;
}

interface Tables {
  v4: Ipv4Table;
  v6: Map<string, number>;
  values: ValueTable;
}

function setIn(t: Tables, ip: string, listing: ListingValue): void {
  const key = keyOf(ip);
  if (key === null) throw new AppError('INVALID_IP', `not an IP address: ${ip}`);
  const id = t.values.intern(listing);
  const previous = typeof key === 'number' ? t.v4.set(key, id) : (t.v6.get(key) ?? -1);
  if (typeof key === 'string') t.v6.set(key, id);
  if (previous >= 0) t.values.release(previous);
}

/**
 * The index in a form another thread receives cheaply: IPv4 as the hash table's two typed arrays
 * (transferred, not cloned: `snapshotTransferList`), IPv6 keys and the interned values as arrays.
 */
export interface ListingIndexSnapshot {
  v4: { keys: Uint32Array; ids: Int32Array; count: number };
  v6Keys: string[];
  v6Ids: Int32Array;
  values: { values: (ListingValue | null)[]; refs: number[] };
}

export function snapshotTransferList(s: ListingIndexSnapshot): ArrayBuffer[] {
  return [s.v4.keys.buffer as ArrayBuffer, s.v4.ids.buffer as ArrayBuffer, s.v6Ids.buffer as ArrayBuffer];
}

/** A fast in-memory index of active listings, kept in sync by the blocklist module. */
export function createListingIndex(
  initial?: Iterable<DnsblListing> | ListingIndexSnapshot,
): FastListingIndex & { snapshot(): ListingIndexSnapshot } {
  let t: Tables = { v4: new Ipv4Table(), v6: new Map(), values: new ValueTable() };
  if (initial && 'v6Keys' in initial) {
    const v6 = new Map<string, number>();
    initial.v6Keys.forEach((key, i) => {
      v6.set(key, initial.v6Ids[i] as number);
    });
    t = { v4: new Ipv4Table(0, initial.v4), v6, values: new ValueTable(initial.values) };
  } else if (initial) replace(initial);

  function replace(listings: Iterable<DnsblListing>): void {
    const expected = Array.isArray(listings) ? listings.length : 0;
    const next: Tables = { v4: new Ipv4Table(expected), v6: new Map(), values: new ValueTable() };
    for (const l of listings) setIn(next, l.ip, l);
    t = next;
  }

  return {
    get(ip) {
      const key = keyOf(ip);
      if (key === null) return undefined;
      const id = typeof key === 'number' ? t.v4.get(key) : (t.v6.get(key) ?? -1);
      return id < 0 ? undefined : t.values.values[id];
    },
    getIpv4(int) {
      const id = t.v4.get(int);
      return id < 0 ? undefined : t.values.values[id];
    },
    getIpv6(hex) {
      const id = t.v6.get(hex);
      return id === undefined ? undefined : t.values.values[id];
    },
    get size() {
      return t.v4.count + t.v6.size;
    },
    set(ip, listing) {
      setIn(t, ip, listing);
    },
    delete(ip) {
      const key = keyOf(ip);
      if (key === null) return false;
      let id: number;
      if (typeof key === 'number') id = t.v4.delete(key);
      else {
        id = t.v6.get(key) ?? -1;
        t.v6.delete(key);
      }
      if (id >= 0) t.values.release(id);
      return id >= 0;
    },
    replaceAll: replace,
    snapshot() {
      return {
        v4: t.v4.copy(),
        v6Keys: [...t.v6.keys()],
        v6Ids: Int32Array.from(t.v6.values()),
        values: t.values.copy(),
      };
    },
  };
}
