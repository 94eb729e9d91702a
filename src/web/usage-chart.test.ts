import { describe, expect, it } from 'vitest';
import { roundMax, usageChart } from './usage-chart.ts';

const days = (counts: number[]) =>
  counts.map((requests, i) => ({ day: `2026-06-${String(i + 1).padStart(2, '0')}`, requests }));

describe('usage chart', () => {
  it('rounds the axis top to 1, 2 or 5 × 10^k', () => {
    expect([0, 1, 2, 3, 7, 10, 11, 45, 99, 101, 2500].map(roundMax)).toEqual([
      1, 1, 2, 5, 10, 10, 20, 50, 100, 200, 5000,
    ]);
  });

  it('draws axes, tick labels, one bar per day, a title and a description', () => {
    const svg = usageChart(days([0, 3, 40, 0, 1]), { id: 'k1', label: 'Requests per day, key "mail"' });
    expect(svg).toContain('role="img" aria-labelledby="k1-t k1-d"');
    expect(svg).toContain('<title id="k1-t">Requests per day, key &quot;mail&quot;</title>');
    expect(svg).toContain(
      '5 days from 2026-06-01 to 2026-06-05: 44 requests in all, most on 2026-06-03 (40).',
    );
    expect(svg.match(/<rect /g)).toHaveLength(5);
    // y ticks 0, 25, 50 and x labels first, middle, last day.
    for (const t of ['>0<', '>25<', '>50<', '>06-01<', '>06-03<', '>06-05<', 'requests/day'])
      expect(svg).toContain(t);
    expect(svg.match(/class="axis"/g)).toHaveLength(2);
    expect(svg).toContain('44 in 5 days');
  });

  it('an idle key: a flat chart that says so', () => {
    const svg = usageChart(days(new Array(30).fill(0)), { id: 'k2', label: 'x' });
    expect(svg).toContain('0 requests in all.');
    expect(svg).toContain('>1<');
    expect(svg).not.toContain('NaN');
  });

  it('labels whole numbers of requests only: no 0.5 or 2.5 tick (#36 item 7)', () => {
    for (const peak of [0, 1, 3, 5, 50]) {
      const svg = usageChart(days([peak, 0]), { id: 'k3', label: 'x' });
      const ticks = [...svg.matchAll(/class="grid"\/><text[^>]*>([^<]+)</g)].map((m) => m[1]);
      expect(ticks.length).toBeGreaterThanOrEqual(2);
      for (const t of ticks) expect(t).toMatch(/^\d+$/);
    }
  });
});
