/**
 * The records of the MMDB export, in GeoLite2-City's layout (MaxMind's GeoIP2 and GeoLite2 field
 * names) with GeoLite2-ASN's keys and a `netrep` map. A record is written once per pair of
 * what the snapshot answers for an address (its "part": country, registered country, ASN,
 * organisation, flags) and what DB-IP's city file says of it (its "city"). Parts and cities are
 * offsets of values written once (a country map, an organisation string, a flags map), so a
 * record is a map of about ten pointers, and no JS object is kept per part, city or record.
 */
import { createHash } from 'node:crypto';
import { type MmdbMap, MmdbPointer, type MmdbValue, type MmdbWriter } from './mmdb-writer.ts';

/** The fields of an IP answer the export writes (intel's IpAnswer has them). */
export interface MmdbAnswer {
  prefix: string;
  asn: number | null;
  asn_name: string | null;
  country: string | null;
  rir: string | null;
  connection_type: string | null;
  bogon: boolean;
  netrep: { readonly [flag: string]: boolean | string | undefined };
  threat: { score: number; level: string; explanation: readonly string[] };
}

/** The fields of the API's geolocation the export writes (intel's Geolocation has them). */
export interface MmdbGeolocation {
  city: string | null;
  region: string | null;
  postal_code: string | null;
  latitude: number | null;
  longitude: number | null;
  accuracy_radius: number | null;
  timezone: string | null;
  continent_code: string | null;
  continent_name: string | null;
}

/** The record keys in GeoLite2's order (readers do not depend on it; people reading dumps do). */
const KEYS = [
  'city',
  'continent',
  'country',
  'location',
  'postal',
  'registered_country',
  'subdivisions',
  'autonomous_system_number',
  'autonomous_system_organization',
  'netrep',
] as const;
/** Where each key's value comes from: slot k of the part (P) or of the city (C); ASN in place. */
const FROM: readonly [kind: 'P' | 'C', slot: number][] = [
  ['C', 0],
  ['C', 1],
  ['P', 0],
  ['C', 2],
  ['C', 3],
  ['P', 1],
  ['C', 4],
  ['P', 2],
  ['P', 3],
  ['P', 4],
];
const ASN_KEY = KEYS.indexOf('autonomous_system_number');
/** Slots a part or a city has: offsets, and a part's ASN; NONE when absent. */
const SLOTS = 5;
const NONE = 0xffffffff;

/** Offsets and ASNs in a growing Uint32Array, SLOTS per entry. */
class Slots {
  a = new Uint32Array(SLOTS << 12);
  length = 0;

  /** Adds an entry; its index. */
  push(values: readonly number[]): number {
    if (this.length + SLOTS > this.a.length) {
      const b = new Uint32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a.set(values, this.length);
    this.length += SLOTS;
    return this.length / SLOTS - 1;
  }
}

/** The `netrep` map of an answer: its flags and the rest of what /v1/ip says, under the API's names. */
export function netrepMapOf(a: MmdbAnswer): Record<string, MmdbValue> {
  const out: Record<string, MmdbValue> = {};
  for (const [k, v] of Object.entries(a.netrep)) if (v !== undefined) out[k] = v;
  if (a.connection_type !== null) out.connection_type = a.connection_type;
  if (a.rir !== null) out.rir = a.rir;
  const provider = (a.netrep.cloud_provider as string | undefined) ?? a.asn_name;
  if (provider) out.provider = provider;
  out.threat = { score: a.threat.score, level: a.threat.level, explanation: [...a.threat.explanation] };
  return out;
}

/** GeoLite2's `location` map of a geolocation, null without coordinates. */
function locationOf(geo: MmdbGeolocation): MmdbMap | null {
  if (geo.latitude === null || geo.longitude === null) return null;
  const l: Record<string, MmdbValue> = { latitude: geo.latitude, longitude: geo.longitude };
  if (geo.accuracy_radius !== null) l.accuracy_radius = geo.accuracy_radius;
  if (geo.timezone) l.time_zone = geo.timezone;
  return l;
}

/** Parts: written while the snapshot is read; `slots` is all the records need of them after. */
export interface MmdbParts {
  /** The part of an answer and the record's registered (whois) country; -1 for none or a bogon. */
  partOf(a: MmdbAnswer | null, registered: string | null): number;
  slots: Slots;
}

export function createParts(writer: MmdbWriter, countryName: (cc: string) => string | null): MmdbParts {
  const countries = new Map<string, number>();
  const countryMap = (cc: string | null): number => {
    if (cc === null) return NONE;
    let at = countries.get(cc);
    if (at === undefined) {
      const name = countryName(cc);
      at = writer.shared(name ? { iso_code: cc, names: { en: name } } : { iso_code: cc });
      countries.set(cc, at);
    }
    return at;
  };
  // Parts by a digest of what they say (164,000 of them on the full data: their text itself
  // would hold some 50 MB while the lookup's own caches are at their largest).
  const ids = new Map<string, number>();
  const slots = new Slots();
  return {
    partOf(a, registered) {
      if (!a || a.bogon) return -1;
      const netrep = netrepMapOf(a);
      const facts = JSON.stringify([a.country, registered, a.asn, a.asn_name, netrep]);
      const digest = createHash('sha1').update(facts).digest('base64');
      let id = ids.get(digest);
      if (id === undefined) {
        id = slots.push([
          countryMap(a.country),
          countryMap(registered),
          a.asn ?? NONE,
          a.asn_name === null ? NONE : writer.shared(a.asn_name),
          writer.record(netrep),
        ]);
        ids.set(digest, id);
      }
      return id;
    },
    slots,
  };
}

/**
 * Part and city → record offset, in typed arrays (open addressing): a Map with number keys past
 * 2^31 boxes every key. Past 70 % full it starts again; a pair seen then is written again.
 */
class PairTable {
  private readonly bits = 21;
  private readonly parts = new Int32Array(1 << this.bits).fill(-1);
  private readonly cities = new Int32Array(1 << this.bits);
  private readonly offsets = new Int32Array(1 << this.bits);
  private used = 0;

  get(part: number, city: number, write: () => number): number {
    const mask = (1 << this.bits) - 1;
    let i = (Math.imul(part, 0x9e3779b1) ^ Math.imul(city + 1, 0x85ebca77)) >>> (32 - this.bits);
    for (; this.parts[i] !== -1; i = (i + 1) & mask)
      if (this.parts[i] === part && this.cities[i] === city) return this.offsets[i] as number;
    if (this.used > (mask * 7) / 10) {
      this.parts.fill(-1);
      this.used = 0;
      return this.get(part, city, write);
    }
    const at = write();
    this.parts[i] = part;
    this.cities[i] = city;
    this.offsets[i] = at;
    this.used++;
    return at;
  }
}

export interface MmdbRecords {
  /** The city of a geolocation; its id. */
  city(geo: MmdbGeolocation): number;
  /** The data offset of the record of a part and a city (-1: none). */
  pair(part: number, city: number): number;
}

/** Writes the record keys: first, so that the pointers to them are the short ones (2 bytes below offset 2048). */
export function writeKeys(writer: MmdbWriter): readonly MmdbPointer[] {
  return KEYS.map((k) => new MmdbPointer(writer.shared(k)));
}

export function createRecords(writer: MmdbWriter, keys: readonly MmdbPointer[], parts: Slots): MmdbRecords {
  const cities = new Slots();
  const pairs = new PairTable();
  const names = (en: string): MmdbMap => ({ names: { en } });
  const shared = (v: MmdbMap | readonly MmdbValue[] | null): number => (v ? writer.shared(v) : NONE);
  const noCity = new Uint32Array(SLOTS).fill(NONE);

  function city(geo: MmdbGeolocation): number {
    const location = locationOf(geo);
    const continent = geo.continent_code
      ? { code: geo.continent_code, ...(geo.continent_name ? names(geo.continent_name) : {}) }
      : null;
    return cities.push([
      shared(geo.city ? names(geo.city) : null),
      shared(continent),
      location ? writer.record(location) : NONE,
      shared(geo.postal_code ? { code: geo.postal_code } : null),
      shared(geo.region ? [names(geo.region)] : null),
    ]);
  }

  function write(part: number, cityId: number): number {
    const p = parts.a.subarray(part * SLOTS, part * SLOTS + SLOTS);
    const c = cityId >= 0 ? cities.a.subarray(cityId * SLOTS, cityId * SLOTS + SLOTS) : noCity;
    const entries: [MmdbPointer, MmdbValue][] = [];
    FROM.forEach(([kind, slot], k) => {
      const v = (kind === 'P' ? p : c)[slot] as number;
      if (v !== NONE) entries.push([keys[k] as MmdbPointer, k === ASN_KEY ? v : new MmdbPointer(v)]);
    });
    return writer.entries(entries);
  }

  return { city, pair: (part, cityId) => pairs.get(part, cityId, () => write(part, cityId)) };
}
