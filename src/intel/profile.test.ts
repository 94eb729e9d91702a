/** The classification rules of a record's profile without a snapshot: datacenter, connection type, static threat. */
import { describe, expect, it } from 'vitest';
import { type AsnEntry, FLAG } from '../dataset/index.ts';
import { connectionOf, datacenterBasis, type NetworkEvidence, staticContributions } from './profile.ts';
import type { NetrepFlags } from './types.ts';

const none: NetworkEvidence = {
  cloud: null,
  flags: 0,
  entry: undefined,
  curated: undefined,
  asClass: null,
  byName: null,
};
const entry = (fields: Partial<AsnEntry>): AsnEntry => fields as AsnEntry;

describe('datacenterBasis', () => {
  it('takes the first evidence in precedence order', () => {
    expect(datacenterBasis(none)).toBeNull();
    expect(datacenterBasis({ ...none, cloud: 'AWS', flags: FLAG.DATACENTER_LIST })).toBe('cloud');
    expect(datacenterBasis({ ...none, flags: FLAG.DATACENTER_LIST })).toBe('list');
    expect(datacenterBasis({ ...none, entry: entry({ datacenter: true }) })).toBe('asn-list');
    expect(datacenterBasis({ ...none, curated: { kind: 'hosting' } })).toBe('curated');
    expect(datacenterBasis({ ...none, asClass: 'content' })).toBe('as-class');
    expect(datacenterBasis({ ...none, byName: 'hosting' })).toBe('name');
  });

  it('lets a curated network that is not hosting, or a CAIDA class, overrule the weaker evidence', () => {
    expect(datacenterBasis({ ...none, curated: { kind: 'isp' }, asClass: 'content' })).toBeNull();
    expect(datacenterBasis({ ...none, curated: { kind: 'isp' }, byName: 'hosting' })).toBeNull();
    expect(datacenterBasis({ ...none, asClass: 'transit_access', byName: 'hosting' })).toBeNull();
  });
});

describe('connectionOf', () => {
  it('names the rule that gave the connection type', () => {
    expect(connectionOf(true, { ...none, curated: { kind: 'isp' } })).toEqual({
      type: 'datacenter',
      by: 'datacenter',
    });
    expect(connectionOf(false, { ...none, curated: { kind: 'isp' } })).toEqual({
      type: 'residential',
      by: 'curated',
    });
    expect(connectionOf(false, { ...none, curated: { kind: 'mobile' } })).toEqual({
      type: 'mobile',
      by: 'curated',
    });
    expect(connectionOf(false, { ...none, asClass: 'transit_access' })).toEqual({
      type: 'residential',
      by: 'as-class',
    });
    expect(connectionOf(false, { ...none, asClass: 'transit_access', byName: 'mobile' })).toEqual({
      type: 'mobile',
      by: 'as-class-name',
    });
    expect(connectionOf(false, { ...none, asClass: 'enterprise' })).toEqual({
      type: 'business',
      by: 'as-class',
    });
    expect(connectionOf(false, { ...none, asClass: 'enterprise', byName: 'education' })).toEqual({
      type: 'education',
      by: 'as-class-name',
    });
    expect(connectionOf(false, { ...none, byName: 'education' })).toEqual({ type: 'education', by: 'name' });
    expect(connectionOf(false, { ...none, byName: 'hosting' })).toEqual({ type: null, by: 'none' });
    expect(connectionOf(false, none)).toEqual({ type: null, by: 'none' });
  });
});

describe('staticContributions', () => {
  const clean: NetrepFlags = {
    is_datacenter: false,
    is_tor_exit: false,
    is_proxy: false,
    is_vpn: false,
    is_residential: false,
    is_mobile: false,
    is_ai_crawler: false,
  };

  it('adds one line per list and flag, DROP named by the narrowest list', () => {
    expect(staticContributions(0, 64500, false, clean)).toEqual([]);
    expect(staticContributions(FLAG.DROP | FLAG.EDROP, 64500, true, clean)).toEqual([
      { points: 50, reason: 'prefix on Spamhaus DROP' },
    ]);
    expect(staticContributions(FLAG.EDROP, 64500, false, clean)[0]?.reason).toBe('prefix on Spamhaus EDROP');
    expect(staticContributions(0, 64500, true, clean)[0]?.reason).toBe('AS64500 on Spamhaus ASN-DROP');
    const all = { ...clean, is_tor_exit: true, is_proxy: true, is_vpn: true, is_datacenter: true };
    expect(
      staticContributions(FLAG.UCE1 | FLAG.UCE2 | FLAG.UCE3, null, false, all).map((c) => c.reason),
    ).toEqual([
      'ASN on UCEPROTECT level 3',
      'prefix on UCEPROTECT level 2',
      'IP on UCEPROTECT level 1',
      'Tor exit relay',
      'public proxy',
      'VPN network',
      'datacenter network',
    ]);
  });

  it('gives a known company AI crawler no datacenter point (CONTRACT §6)', () => {
    expect(
      staticContributions(0, null, false, { ...clean, is_datacenter: true, is_ai_crawler: true }),
    ).toEqual([]);
  });
});
