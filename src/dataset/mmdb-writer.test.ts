import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Reader } from 'maxmind';
import { describe, expect, it } from 'vitest';
import { createMmdbWriter, type MmdbMap } from './mmdb-writer.ts';

const v4 = (text: string): bigint => BigInt(text.split('.').reduce((a, o) => a * 256 + Number(o), 0));

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

function writeSample(recordSize?: 24 | 28 | 32): Reader<MmdbMap> {
  const w = createMmdbWriter({
    databaseType: 'netrep-test',
    description: 'writer test',
    buildEpoch: 1_780_000_000,
    ...(recordSize ? { recordSize } : {}),
  });
  const sample = w.record(SAMPLE);
  const other = w.record({ name: 'other', list: ['a', 'bb'] });
  w.insert(4, v4('8.8.8.0'), 24, sample);
  w.insert(4, v4('8.8.4.0'), 24, other);
  w.insert(4, v4('1.2.3.4'), 32, other);
  w.insert(6, 0x2a000000n << 96n, 12, sample);
  w.insert(6, 0x2001_0db8_0000_0000_0000_0000_0000_0001n, 128, other);
  return new Reader<MmdbMap>(w.toBuffer());
}

describe('createMmdbWriter', () => {
  for (const size of [24, 28, 32] as const) {
    it(`${size}-bit records: the maxmind reader reads back every value, network and the metadata`, () => {
      const r = writeSample(size);
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
      expect(r.get('8.8.4.4')).toEqual({ name: 'other', list: ['a', 'bb'] });
      expect(r.getWithPrefixLength('1.2.3.4')).toEqual([{ name: 'other', list: ['a', 'bb'] }, 32]);
      expect(r.get('1.2.3.5')).toBeNull();
      expect(r.get('8.8.9.0')).toBeNull();
      expect(r.get('2a0f:ffff::1')).toEqual(SAMPLE);
      expect(r.get('2a10::')).toBeNull();
      expect(r.get('2001:db8::1')).toEqual({ name: 'other', list: ['a', 'bb'] });
      expect(r.get('2001:db8::2')).toBeNull();
    });
  }

  it('answers IPv4-mapped IPv6 addresses from the IPv4 networks', () => {
    const r = writeSample();
    expect(r.get('::ffff:8.8.4.4')).toEqual({ name: 'other', list: ['a', 'bb'] });
    expect(r.getWithPrefixLength('::ffff:8.8.8.8')[1]).toBe(96 + 24);
  });

  it('writes a repeated string or map once and points at it', () => {
    const w = createMmdbWriter({ databaseType: 't', description: 't', buildEpoch: 1_780_000_000 });
    const organisation = 'An Organisation With A Long Name';
    const flags = { is_tor_exit: false, is_vpn: true };
    const a = w.record({ organisation, flags });
    const b = w.record({ organisation, flags: { ...flags } });
    const end = w.record({});
    w.insert(4, v4('10.0.0.0'), 8, a);
    w.insert(4, v4('11.0.0.0'), 8, b);
    const buf = w.toBuffer();
    const r = new Reader<MmdbMap>(buf);
    expect(r.get('10.1.1.1')).toEqual({ organisation, flags });
    expect(r.get('11.1.1.1')).toEqual({ organisation, flags });
    // The second record: a map control byte, then two keys and two values, each a 2-byte pointer.
    expect(end - b).toBe(1 + 4 * 2);
    expect(buf.toString('latin1').split(organisation).length - 1).toBe(1);
  });

  it('a network inserted inside an earlier, wider one splits it: each keeps its own addresses', () => {
    const w = createMmdbWriter({ databaseType: 't', description: 't', buildEpoch: 1_780_000_000 });
    const inner = w.record({ n: 'inner' });
    const outer = w.record({ n: 'outer' });
    w.insert(4, v4('9.9.9.0'), 24, outer);
    w.insert(4, v4('9.9.9.128'), 25, inner);
    const r = new Reader<MmdbMap>(w.toBuffer());
    expect(r.getWithPrefixLength('9.9.9.1')).toEqual([{ n: 'outer' }, 25]);
    expect(r.getWithPrefixLength('9.9.9.200')).toEqual([{ n: 'inner' }, 25]);
  });

  it('libmaxminddb (mmdblookup) reads the same file', (ctx) => {
    if (!existsSync('/usr/bin/mmdblookup')) {
      process.stdout.write('skipped: mmdblookup not installed (Debian mmdb-bin; CI installs it)\n');
      ctx.skip();
    }
    const dir = mkdtempSync(path.join(tmpdir(), 'netrep-mmdb-'));
    try {
      const w = createMmdbWriter({ databaseType: 't', description: 't', buildEpoch: 1_780_000_000 });
      w.insert(4, v4('8.8.8.0'), 24, w.record({ asn: 15169, name: 'Google LLC', ok: true, list: ['x'] }));
      const file = path.join(dir, 't.mmdb');
      writeFileSync(file, w.toBuffer());
      const out = execFileSync('mmdblookup', ['--file', file, '--ip', '8.8.8.8'], { encoding: 'utf8' });
      expect(out).toMatch(/"asn":\s+15169 <uint16>/);
      expect(out).toMatch(/"name":\s+"Google LLC" <utf8_string>/);
      expect(out).toMatch(/"ok":\s+true <boolean>/);
      const verify = execFileSync('mmdblookup', ['--file', file, '--ip', '::ffff:8.8.8.8', 'list', '0'], {
        encoding: 'utf8',
      });
      expect(verify.trim()).toBe('"x" <utf8_string>');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
