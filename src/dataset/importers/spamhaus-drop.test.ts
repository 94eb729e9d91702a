import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDataPath } from '../../../test/helpers/shared-data.ts';
import { parseAsnDropJson, parseAsnDropText, parseDropJson, parseDropText } from './spamhaus-drop.ts';

const read = (p: string) => readFileSync(sharedDataPath('spamhaus', p));

describe('Spamhaus DROP family', () => {
  it('text DROP, DROPv6, EDROP and the empty merged EDROP', () => {
    const drop = parseDropText(read('drop.txt'));
    expect(drop.rows).toHaveLength(1385);
    expect(drop.metadata.complete).toBe(true);
    expect(drop.rows[0]).toMatchObject({ prefixLength: 20, sblId: 'SBL256894' });
    expect(parseDropText(read('dropv6.txt')).rows.every((r) => r.family === 6)).toBe(true);
    expect(parseDropText(read('edrop.txt')).rows).toHaveLength(289);
    const empty = parseDropText(read('edrop-2024-10-18-merged-notice.txt'));
    expect(empty).toMatchObject({ rows: [], rejected: [], metadata: { complete: true } });
  });

  it('NDJSON DROP and ASN-DROP skip the metadata line', () => {
    const d = parseDropJson(read('drop_v4.json'));
    // The real file lists 62.60.226.0/24 twice.
    expect(d.rows).toHaveLength(1669);
    expect(d.rejected.map((r) => [r.reason, r.text.slice(0, 22)])).toEqual([
      ['duplicate range', '{"cidr":"62.60.226.0/2'],
    ]);
    expect(d.metadata.timestamp).toBe(1784798042);
    const a = parseAsnDropJson(read('asndrop.json'));
    expect(a.rows).toHaveLength(201);
    expect(a.rows[0]).toEqual({ asn: 932, country: 'US', name: 'XNNET' });
  });

  it('a truncated download is marked incomplete and bad lines are rejected', () => {
    const text = read('drop.txt').toString('utf8');
    const cut = parseDropText(text.slice(0, text.length - 200));
    expect(cut.metadata.complete).toBe(false);
    const hostile = parseDropText('1.2.3.0/24 ; SBL1\n1.2.3.0/24 ; SBL1\n999.1.1.0/24 ; SBL2\n1.2.4.0/40\n');
    expect(hostile.rows).toHaveLength(1);
    expect(hostile.rejected.map((r) => r.reason)).toEqual([
      'duplicate range',
      'invalid CIDR',
      'invalid CIDR',
    ]);
    const j = parseDropJson('{"cidr":"1.2.3.0/24"}\n{"cidr":"x"}\n{broken\n[1]\n');
    expect(j.rows).toHaveLength(1);
    expect(j.metadata.complete).toBe(false);
    expect(j.rejected.map((r) => r.reason).sort()).toEqual([
      'invalid CIDR',
      'not a JSON object',
      'not valid JSON',
    ]);
    const t = parseAsnDropText('; header\nAS123 ; US | BAD-NET\nAS123 ; US | BAD-NET\nASX\nAS99999999999\n');
    expect(t.rows).toEqual([{ asn: 123, country: 'US', name: 'BAD-NET' }]);
    expect(t.rejected).toHaveLength(3);
  });
});
