import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { column, TableFile, writeTables } from './table-file.ts';

describe('snapshot columns', () => {
  it('refuses a value its element type cannot hold instead of wrapping it', () => {
    // The format-1 fault: string id 75,113 written as 16 bits read back as 9,577.
    expect(() => column(Uint16Array, 'rec.cloud', [1, 75_113], (x) => x)).toThrow(
      /rec.cloud: value 75113 at row 1 does not fit Uint16Array/,
    );
    expect(() => column(Uint8Array, 'lengths', [256], (x) => x)).toThrow(RangeError);
    expect(() => column(Uint32Array, 'recs', [-1], (x) => x)).toThrow(RangeError);
    expect(() => column(Int32Array, 'nets', [0x80000000], (x) => x)).toThrow(RangeError);
    expect(() => column(Uint32Array, 'x', [1.5], (x) => x)).toThrow(RangeError);
  });

  it('round-trips every value that fits through tables.bin', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'netrep-tables-'));
    const file = path.join(dir, 'tables.bin');
    const ids = [0, 65_535, 65_536, 82_070, 0xffffffff];
    const sections = writeTables(file, {
      'rec.cloud': column(Uint32Array, 'rec.cloud', ids, (x) => x),
      'rec.rir': column(Uint8Array, 'rec.rir', [0, 5, 255], (x) => x),
    });
    const t = new TableFile(file, sections);
    expect([...t.u32('rec.cloud')]).toEqual(ids);
    expect([...t.u8('rec.rir')]).toEqual([0, 5, 255]);
  });
});
