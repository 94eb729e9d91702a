import { describe, expect, it } from 'vitest';
import { checkKeyChoice, keyChoicesFor, knownFeatures, MEMBER_TIERS, mayManageKey } from './key-policy.ts';
import { FEATURES, PERMISSIONS, TIER_NAMES } from './types.ts';

describe('key policy', () => {
  it('members choose the self-service tiers and every permission but admin; administrators anything', () => {
    expect(keyChoicesFor('member')).toEqual({
      tiers: MEMBER_TIERS,
      permissions: PERMISSIONS.filter((p) => p !== 'admin'),
      features: [],
    });
    expect(keyChoicesFor('admin')).toEqual({
      tiers: TIER_NAMES,
      permissions: PERMISSIONS,
      features: FEATURES,
    });
  });

  it('checks a requested tier and permissions against the role', () => {
    expect(checkKeyChoice('member', 'starter', ['ip:read', 'email:read'])).toEqual({
      ok: true,
      tier: 'starter',
      permissions: ['ip:read', 'email:read'],
    });
    expect(checkKeyChoice('member', 'pro', ['ip:read'])).toEqual({
      ok: false,
      error: 'Choose one of the offered tiers.',
    });
    expect(checkKeyChoice('member', 'free', ['ip:read', 'admin'])).toEqual({
      ok: false,
      error: 'Choose permissions from the list.',
    });
    expect(checkKeyChoice('member', 'free', [])).toEqual({
      ok: false,
      error: 'Choose at least one permission.',
    });
    expect(checkKeyChoice('admin', 'enterprise', ['admin'])).toMatchObject({ ok: true, tier: 'enterprise' });
    expect(checkKeyChoice('admin', 'platinum', ['admin'])).toMatchObject({ ok: false });
  });

  it('owners manage their own keys, administrators every key, nobody an unknown one', () => {
    const member = { id: 7, role: 'member' as const };
    const admin = { id: 1, role: 'admin' as const };
    expect(mayManageKey(member, 7)).toBe(true);
    expect(mayManageKey(member, 8)).toBe(false);
    expect(mayManageKey(admin, 8)).toBe(true);
    expect(mayManageKey(admin, null)).toBe(false);
  });

  it('keeps only known features', () => {
    expect(knownFeatures(['telemetry_ingest', 'root', 'telemetry_ingest'])).toEqual(['telemetry_ingest']);
  });
});
