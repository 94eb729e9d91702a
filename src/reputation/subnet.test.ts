import { describe, expect, it } from 'vitest';
import { contaminationLevel, subnetOf, summarizeSubnet } from './subnet.ts';

describe('contaminationLevel switches exactly at 0/1/3/6 active listings', () => {
  it.each([
    [0, 'clean'],
    [1, 'light'],
    [2, 'light'],
    [3, 'moderate'],
    [5, 'moderate'],
    [6, 'heavy'],
    [256, 'heavy'],
  ] as const)('%i -> %s', (n, level) => {
    expect(contaminationLevel(n)).toBe(level);
  });
});

describe('summarizeSubnet', () => {
  it('summarizes the seen addresses of a /24', () => {
    const s = summarizeSubnet('198.51.100.0/24', [
      { ip: '198.51.100.1', score: 60, listed: false },
      { ip: '198.51.100.2', score: 10, listed: true },
      { ip: '198.51.100.3', score: 45, listed: false },
    ]);
    expect(s).toEqual({
      subnet: '198.51.100.0/24',
      total_ips_seen: 3,
      listed_count: 1,
      avg_reputation: 38,
      worst_score: 10,
      contamination_level: 'light',
    });
  });

  it('rounds the mean half up and counts an address once (last entry wins)', () => {
    const s = summarizeSubnet('198.51.100.0/24', [
      { ip: '198.51.100.1', score: 60, listed: false },
      { ip: '198.51.100.2', score: 61, listed: true },
      { ip: '198.51.100.2', score: 61, listed: false },
    ]);
    expect(s).toMatchObject({
      total_ips_seen: 2,
      listed_count: 0,
      avg_reputation: 61,
      contamination_level: 'clean',
    });
  });

  it.each([0, 1, 2, 3, 5, 6, 7])('with %i listed members the level matches contaminationLevel', (listed) => {
    const members = Array.from({ length: 10 }, (_, i) => ({
      ip: `198.51.100.${i}`,
      score: 50,
      listed: i < listed,
    }));
    const s = summarizeSubnet('198.51.100.0/24', members);
    expect(s.listed_count).toBe(listed);
    expect(s.contamination_level).toBe(contaminationLevel(listed));
  });

  it('has null mean and worst when no address is seen', () => {
    expect(summarizeSubnet('198.51.100.0/24', [])).toEqual({
      subnet: '198.51.100.0/24',
      total_ips_seen: 0,
      listed_count: 0,
      avg_reputation: null,
      worst_score: null,
      contamination_level: 'clean',
    });
  });
});

describe('subnetOf', () => {
  it.each([
    ['198.51.100.77', '198.51.100.0/24'],
    [' 8.8.4.4 ', '8.8.4.0/24'],
    ['::ffff:1.2.3.4', '1.2.3.0/24'],
    ['2001:db8::1', null],
    ['not an ip', null],
    ['1.2.3.4/24', null],
  ])('%s -> %s', (ip, subnet) => {
    expect(subnetOf(ip)).toBe(subnet);
  });
});

describe('summarizeSubnet with the blocklist count', () => {
  it('takes listed_count and the level from the given count, not from the scored members', () => {
    const s = summarizeSubnet('198.51.100.0/24', [{ ip: '198.51.100.1', score: 70 }], 3);
    expect(s.listed_count).toBe(3);
    expect(s.contamination_level).toBe('moderate');
    expect(s.total_ips_seen).toBe(1);
  });
});
