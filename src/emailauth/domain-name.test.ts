import { describe, expect, it } from 'vitest';
import { organizationalDomain, validateDomainName } from './domain-name.ts';

describe('validateDomainName', () => {
  it.each([
    ['Example.COM', 'example.com'],
    ['  mail.example.co.uk. ', 'mail.example.co.uk'],
    ['bücher.de', 'xn--bcher-kva.de'],
    ['xn--bcher-kva.de', 'xn--bcher-kva.de'],
    ['a-b.example.org', 'a-b.example.org'],
    [`${'a'.repeat(63)}.com`, `${'a'.repeat(63)}.com`],
  ])('accepts %j as %j', (input, expected) => {
    expect(validateDomainName(input)).toBe(expected);
  });

  it.each([
    '',
    'com',
    'co.uk',
    'localhost',
    'printer.local',
    'example',
    '192.0.2.1',
    '[192.0.2.1]',
    '-bad.com',
    'bad-.com',
    'under_score.com',
    'a..b.com',
    `${'a'.repeat(64)}.com`,
    `${'a.'.repeat(127)}com`,
    'exa mple.com',
    'exam\nple.com',
    'example.123',
    'http://example.com',
    'user@example.com',
    'example.com:80',
    'xn--.com',
    null,
    42,
  ])('rejects %j', (input) => {
    expect(validateDomainName(input)).toBeNull();
  });
});

describe('organizationalDomain', () => {
  it('uses the Public Suffix List', () => {
    expect(organizationalDomain('a.b.example.com')).toBe('example.com');
    expect(organizationalDomain('mail.example.co.uk')).toBe('example.co.uk');
    expect(organizationalDomain('example.com')).toBe('example.com');
  });
});
