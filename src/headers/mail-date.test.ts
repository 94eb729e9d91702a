import { describe, expect, it } from 'vitest';
import { formatDelay, parseMailDate, toRfc3339 } from './mail-date.ts';

const iso = (t: string) => {
  const ms = parseMailDate(t);
  return ms === null ? null : toRfc3339(ms);
};

describe('parseMailDate', () => {
  it('reads RFC 5322 dates with and without weekday, seconds and zone comments', () => {
    expect(iso('Tue, 24 May 2016 13:09:41 +0100')).toBe('2016-05-24T12:09:41Z');
    expect(iso('24 May 2016 12:30:11 -0000')).toBe('2016-05-24T12:30:11Z');
    expect(iso('Wed,  8 Mar 2017 16:46:12 +0000 (GMT)')).toBe('2017-03-08T16:46:12Z');
    expect(iso('Sat, 24 Jan 2015 19:35:19 -0800 (PST)')).toBe('2015-01-25T03:35:19Z');
    expect(iso('1 Jan 2024 10:00 +0530')).toBe('2024-01-01T04:30:00Z');
  });

  it('reads obsolete forms: named zones, two-digit years, asctime', () => {
    expect(iso('Wed, 8 Mar 2017 16:46:21 GMT')).toBe('2017-03-08T16:46:21Z');
    expect(iso('Thu, 8 Mar 05 17:40:36 EDT')).toBe('2005-03-08T21:40:36Z');
    expect(iso('Mon Aug 22 09:22:13 2016')).toBe('2016-08-22T09:22:13Z');
    expect(iso('1 Jan 99 00:00:00 +0000')).toBe('1999-01-01T00:00:00Z');
  });

  it('rejects what is not a date', () => {
    for (const t of [
      '',
      'apparently',
      '31 Feb 2020 10:00:00 +0000',
      '1 Foo 2020 10:00:00',
      '1 Jan 2020 25:00:00',
      '1 Jan 2020',
    ]) {
      expect(parseMailDate(t)).toBeNull();
    }
  });
});

describe('formatDelay', () => {
  it('writes short human strings, negative ones with a minus', () => {
    expect([formatDelay(0), formatDelay(2), formatDelay(65), formatDelay(3605), formatDelay(-65)]).toEqual([
      '0s',
      '2s',
      '1m 5s',
      '1h 5s',
      '-1m 5s',
    ]);
    expect(formatDelay(86_400 * 11 + 3600 * 21 + 50 * 60 + 54)).toBe('11d 21h 50m 54s');
  });
});
