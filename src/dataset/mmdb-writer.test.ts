import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Reader } from 'maxmind';
import { afterAll, describe, expect, it } from 'vitest';
import { type Classify, createMmdbWriter, EMPTY, type MmdbMap, MmdbPointer, SPLIT } from './mmdb-writer.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'netrep-mmdb-writer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const v4 = (text: string): bigint => BigInt(text.split('.').reduce((a, o) => a * 256 + Number(o), 0));

/** A network in the 128-bit tree (IPv4 under ::/96) and the data offset of its record. */
interface Net {
  first: bigint;
  length: number;
  offset: number;
}
const net4 = (text: string, length: number, offset: number): Net => ({
  first: v4(text),
  length: 96 + length,
  offset,
});

/**
 * The classify of a list of networks: a prefix holding a narrower network is split, one inside a
 * network has its record (the narrowest's), any other has none. What the export does with the
 * snapshot's intervals, in its simplest form.
 */
function classifyOf(nets: readonly Net[]): Classify {
  const top = (v: bigint, bits: number) => (bits === 0 ? 0n : v >> BigInt(128 - bits));
  return (words, depth) => {
    let prefix = 0n;
    for (const w of words) prefix = (prefix << 32n) | BigInt(w);
    let found = EMPTY;
    let foundLength = -1;
    for (const n of nets) {
      if (n.length > depth && top(n.first, depth) === top(prefix, depth)) return SPLIT;
      if (n.length <= depth && n.length > foundLength && top(n.first, n.length) === top(prefix, n.length)) {
        found = n.offset;
        foundLength = n.length;
      }
    }
    return found;
  };
}

/** Values of every type the writer knows, and sizes past each size-encoding step (29, 285, 65,821). */
const SAMPLE: MmdbMap = {
  short: 'US',
  name: 'Société Générale «Ω»',
  long: 'x'.repeat(300),
  longer: 'y'.repeat(70_000),
  small: 7,
  medium: 65_535,
  large: 4_200_000_000,
  negative: -3,
  fraction: 0.25,
  yes: true,
  no: false,
  empty: [],
  list: ['a', 'bb', 'ccc', 'dddd'],
  nested: { deeper: { deepest: [1, { k: 'v' }] } },
};
const OTHER = { name: 'other', list: ['a', 'bb'] };
const META = { description: 'writer test', buildEpoch: 1_780_000_000 };

function writeSample(name: string, recordSize?: 24 | 28 | 32): Reader<MmdbMap> {
  const file = path.join(dir, name);
  const w = createMmdbWriter({ file, databaseType: 'netrep-test', ...(recordSize ? { recordSize } : {}) });
  const sample = w.record(SAMPLE);
  const other = w.record(OTHER);
  w.finish(
    classifyOf([
      net4('1.2.3.4', 32, other),
      net4('8.8.4.0', 24, other),
      net4('8.8.8.0', 24, sample),
      { first: 0x2001_0db8_0000_0000_0000_0000_0000_0001n, length: 128, offset: other },
      { first: 0x2a000000n << 96n, length: 12, offset: sample },
    ]),
    META,
  );
  return new Reader<MmdbMap>(readFileSync(file));
}

describe('createMmdbWriter', () => {
  for (const size of [24, 28, 32] as const) {
    it(`${size}-bit records: the maxmind reader reads back every value, network and the metadata`, () => {
      const r = writeSample(`sample-${size}.mmdb`, size);
      expect(r.metadata).toMatchObject({
        binaryFormatMajorVersion: 2,
        binaryFormatMinorVersion: 0,
        databaseType: 'netrep-test',
        description: { en: 'writer test' },
        ipVersion: 6,
        languages: ['en'],
        recordSize: size,
      });
      expect(r.metadata.buildEpoch.toISOString()).toBe(new Date(1_780_000_000_000).toISOString());
      // -3 is not an unsigned integer: it goes out as a double, and so reads back the same.
      expect(r.get('8.8.8.200')).toEqual(SAMPLE);
      expect(r.getWithPrefixLength('8.8.8.200')[1]).toBe(24);
      expect(r.get('8.8.4.4')).toEqual(OTHER);
      expect(r.getWithPrefixLength('1.2.3.4')).toEqual([OTHER, 32]);
      expect(r.get('1.2.3.5')).toBeNull();
      expect(r.get('8.8.9.0')).toBeNull();
      expect(r.get('2a0f:ffff::1')).toEqual(SAMPLE);
      expect(r.get('2a10::')).toBeNull();
      expect(r.get('2001:db8::1')).toEqual(OTHER);
      expect(r.get('2001:db8::2')).toBeNull();
    });
  }

  it('answers IPv4-mapped IPv6 addresses from the IPv4 networks', () => {
    const r = writeSample('mapped.mmdb');
    expect(r.get('::ffff:8.8.4.4')).toEqual(OTHER);
    expect(r.getWithPrefixLength('::ffff:8.8.8.8')[1]).toBe(96 + 24);
  });

  it('writes a repeated string or map once and points at it; a map can point at values written before', () => {
    const file = path.join(dir, 'shared.mmdb');
    const w = createMmdbWriter({ file, databaseType: 't' });
    const organisation = 'An Organisation With A Long Name';
    const flags = { is_tor_exit: false, is_vpn: true };
    const a = w.record({ organisation, flags });
    const b = w.record({ organisation, flags: { ...flags } });
    const end = w.record({});
    const key = new MmdbPointer(w.shared('organisation'));
    const flagsAt = w.shared(flags);
    const c = w.entries([
      [key, 'Another One'],
      ['flags', new MmdbPointer(flagsAt)],
    ]);
    w.finish(classifyOf([net4('10.0.0.0', 8, a), net4('11.0.0.0', 8, b), net4('12.0.0.0', 8, c)]), META);
    const buf = readFileSync(file);
    const r = new Reader<MmdbMap>(buf);
    expect(r.get('10.1.1.1')).toEqual({ organisation, flags });
    expect(r.get('11.1.1.1')).toEqual({ organisation, flags });
    expect(r.get('12.1.1.1')).toEqual({ organisation: 'Another One', flags });
    // The second record: a map control byte, then two keys and two values, each a 2-byte pointer.
    expect(end - b).toBe(1 + 4 * 2);
    expect(buf.toString('latin1').split(organisation).length - 1).toBe(1);
    expect(existsSync(`${file}.tree-tmp`) || existsSync(`${file}.data-tmp`)).toBe(false);
  });

  it('a network inside a wider one: the narrower keeps its addresses, the rest of the wider its own', () => {
    const file = path.join(dir, 'nested.mmdb');
    const w = createMmdbWriter({ file, databaseType: 't' });
    const inner = w.record({ n: 'inner' });
    const outer = w.record({ n: 'outer' });
    w.finish(classifyOf([net4('9.9.9.0', 24, outer), net4('9.9.9.128', 25, inner)]), META);
    const r = new Reader<MmdbMap>(readFileSync(file));
    expect(r.getWithPrefixLength('9.9.9.1')).toEqual([{ n: 'outer' }, 25]);
    expect(r.getWithPrefixLength('9.9.9.200')).toEqual([{ n: 'inner' }, 25]);
  });

  it('two halves with the same record are one network (no node for them)', () => {
    const file = path.join(dir, 'halves.mmdb');
    const w = createMmdbWriter({ file, databaseType: 't' });
    const same = w.record({ n: 'same' });
    const r1 = w.finish(classifyOf([net4('7.7.7.0', 25, same), net4('7.7.7.128', 25, same)]), META);
    const r = new Reader<MmdbMap>(readFileSync(file));
    expect(r.getWithPrefixLength('7.7.7.1')).toEqual([{ n: 'same' }, 24]);
    expect(r1.networks).toBe(1);
  });

  it('a failed walk leaves no file and no temp files', () => {
    const file = path.join(dir, 'failed.mmdb');
    const w = createMmdbWriter({ file, databaseType: 't' });
    expect(() => w.finish(() => SPLIT, META)).toThrow(/single address cannot be split/);
    for (const f of [file, `${file}.tree-tmp`, `${file}.data-tmp`]) expect(existsSync(f), f).toBe(false);
  });

  it('libmaxminddb (mmdblookup) reads the same file', (ctx) => {
    if (!existsSync('/usr/bin/mmdblookup')) {
      if (process.env.CI)
        throw new Error('mmdblookup is not installed (Debian mmdb-bin; .ci/run installs it)');
      process.stdout.write('skipped: mmdblookup not installed (Debian mmdb-bin; CI installs it)\n');
      ctx.skip();
    }
    const file = path.join(dir, 'libmaxminddb.mmdb');
    const w = createMmdbWriter({ file, databaseType: 't' });
    const rec = w.record({ asn: 15169, name: 'Google LLC', ok: true, list: ['x'] });
    w.finish(classifyOf([net4('8.8.8.0', 24, rec)]), META);
    const out = execFileSync('mmdblookup', ['--file', file, '--ip', '8.8.8.8'], { encoding: 'utf8' });
    expect(out).toMatch(/"asn":\s+15169 <uint16>/);
    expect(out).toMatch(/"name":\s+"Google LLC" <utf8_string>/);
    expect(out).toMatch(/"ok":\s+true <boolean>/);
    const verify = execFileSync('mmdblookup', ['--file', file, '--ip', '::ffff:8.8.8.8', 'list', '0'], {
      encoding: 'utf8',
    });
    expect(verify.trim()).toBe('"x" <utf8_string>');
  });
});
