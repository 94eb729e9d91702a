import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDataPath } from '../../../test/helpers/shared-data.ts';
import { parseGeofeedCsv, parseVultrGeofeed } from './geofeed.ts';

describe('RFC 8805 geofeeds', () => {
  it('reads Linode (comments), Starlink (trailing comma) and DigitalOcean CSVs', () => {
    const linode = parseGeofeedCsv(readFileSync(sharedDataPath('geofeed/linode-geofeed.csv')));
    expect(linode.rejected).toEqual([]);
    expect(linode.rows[0]).toMatchObject({
      family: 6,
      prefixLength: 32,
      country: 'US',
      region: 'US-TX',
      city: 'Richardson',
      postalCode: null,
    });
    const starlink = parseGeofeedCsv(readFileSync(sharedDataPath('geofeed/starlink-geofeed.csv')));
    expect(starlink.rows.length).toBeGreaterThan(3000);
    const dOcean = parseGeofeedCsv(readFileSync(sharedDataPath('cloud/digitalocean/google.csv')));
    expect(dOcean.rows[0]).toMatchObject({
      country: 'NL',
      region: 'NL-NH',
      city: 'Amsterdam',
      postalCode: '1098 XH',
    });
  });

  it('reads the Vultr JSON variant', () => {
    const v = parseVultrGeofeed(readFileSync(sharedDataPath('geofeed/vultr-geofeed.json')));
    expect(v.asn).toBe(20473);
    expect(v.rows.length).toBeGreaterThan(400);
  });

  it('rejects hostile rows', () => {
    const r = parseGeofeedCsv(
      '# c\n1.2.3.0/24,US,US-CA,LA,\n1.2.3.0/24,US,,,\nbad,US\n1.2.4.0/24,USA\n1.2.5.0/24\n1.2.6.0/24,de,garbage,Berlin',
    );
    expect(r.rows.map((x) => [x.country, x.region, x.city])).toEqual([
      ['US', 'US-CA', 'LA'],
      ['DE', null, 'Berlin'],
    ]);
    expect(r.rejected.map((x) => x.reason).sort()).toEqual([
      'duplicate prefix',
      'expected at least prefix and country',
      'invalid country code',
      'invalid prefix',
    ]);
  });
});
