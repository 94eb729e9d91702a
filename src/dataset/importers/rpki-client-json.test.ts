import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { sharedDataPath } from '../../../test/helpers/shared-data.ts';
import { parseRpkiClientJson } from './rpki-client-json.ts';

describe('rpki-client JSON', () => {
  it('reads the real subset', () => {
    const r = parseRpkiClientJson(
      readFileSync(sharedDataPath('rpki/rpki-client-output-2023-05-04.subset.json')),
    );
    expect(r.buildTime).toBe('2023-05-04T14:52:07Z');
    expect(r.rejected).toEqual([]);
    expect(r.rows).toHaveLength(3009);
    expect(r.rows[0]).toMatchObject({ family: 4, asn: 12975, prefixLength: 20, maxLength: 20 });
  });

  it('reads the whole gzip file', () => {
    const r = parseRpkiClientJson(
      gunzipSync(readFileSync(sharedDataPath('rpki/rpki-client-output-2023-05-04.json.gz'))),
    );
    expect(r.rows.length).toBeGreaterThan(400_000);
  });

  it('rejects hostile ROAs', () => {
    const r = parseRpkiClientJson(
      JSON.stringify({
        roas: [
          { asn: 1, prefix: '10.0.0.0/8', maxLength: 24 },
          { asn: 'AS2', prefix: '10.0.0.0/8', maxLength: 8 },
          { asn: 1, prefix: '10.0.0.1/8', maxLength: 8 },
          { asn: -1, prefix: '10.0.0.0/8', maxLength: 8 },
          { asn: 1, prefix: '10.0.0.0/8', maxLength: 4 },
          { asn: 1, prefix: '10.0.0.0/8', maxLength: 33 },
          null,
        ],
      }),
    );
    expect(r.rows.map((x) => x.asn)).toEqual([1, 2]);
    expect(r.rejected.map((x) => x.reason)).toEqual([
      'invalid prefix',
      'invalid ASN',
      'invalid maxLength',
      'invalid maxLength',
      'ROA is not an object',
    ]);
  });
});
