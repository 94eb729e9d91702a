/** The report charts: one bar a day with its numbers, axes and labels, a text for screen readers, escaped labels. */
import { describe, expect, it } from 'vitest';
import { FAIL_FILL, PASS_FILL, passRateChart, volumeChart } from './report-charts.ts';

const days = [
  { date: '2026-05-01', messages: 40, dmarc_pass: 40 },
  { date: '2026-05-02', messages: 0, dmarc_pass: 0 },
  { date: '2026-05-03', messages: 1234, dmarc_pass: 617 },
];
const rects = (svg: string) => svg.match(/<rect /g)?.length ?? 0;

describe('report charts', () => {
  it('stacks each day as DMARC pass and fail, with axes, labels and a description', () => {
    const svg = volumeChart(days, { id: 'v', label: 'Messages <per> day' });
    expect(svg).toContain('role="img" aria-labelledby="v-t v-d"');
    expect(svg).toContain('<title id="v-t">Messages &lt;per&gt; day</title>');
    expect(svg).toContain(
      '<desc id="v-d">3 days from 2026-05-01 to 2026-05-03: 1,274 messages, 657 passing DMARC and 617 failing; most on 2026-05-03 (1,234).</desc>',
    );
    // Day 1: pass only; day 2: nothing; day 3: pass and fail.
    expect(rects(svg)).toBe(3);
    expect(svg.split(`fill="${PASS_FILL}"`)).toHaveLength(3);
    expect(svg.split(`fill="${FAIL_FILL}"`)).toHaveLength(2);
    expect(svg).toContain('<title>2026-05-03: 1,234 messages, 617 pass DMARC, 617 fail</title>');
    // The y axis runs to 2000 (the round maximum above 1234), labelled compactly; the x axis names days.
    expect(svg).toContain('>2k</text>');
    expect(svg).toContain('>1k</text>');
    for (const d of days) expect(svg).toContain(`>${d.date}</text>`);
    expect(svg).toContain('DMARC pass');
  });

  it('draws the pass rate per day from 0 to 100 %, no bar for a day with no messages', () => {
    const svg = passRateChart(days, { id: 'r', label: 'Pass rate' });
    expect(rects(svg)).toBe(2);
    expect(svg).toContain('<title>2026-05-01: 100% pass DMARC (40 of 40)</title>');
    expect(svg).toContain('<title>2026-05-03: 50% pass DMARC (617 of 1,234)</title>');
    expect(svg).toContain('>100%</text>');
    expect(svg).toContain('the daily DMARC pass rate ranged from 50% to 100%, lowest on 2026-05-03');
  });

  it('says so when there is nothing to draw', () => {
    const empty = [{ date: '2026-05-01', messages: 0, dmarc_pass: 0 }];
    expect(volumeChart(empty, { id: 'a', label: 'x' })).toContain('no messages reported.');
    expect(passRateChart(empty, { id: 'b', label: 'x' })).toContain('no messages reported, so no pass rate.');
    expect(volumeChart([], { id: 'c', label: 'x' })).toContain('No days.');
    expect(rects(volumeChart(empty, { id: 'd', label: 'x' }))).toBe(0);
  });

  it('draws a year of days within the plot', () => {
    const year = Array.from({ length: 366 }, (_, i) => ({
      date: new Date(Date.UTC(2026, 0, 1) + i * 86_400_000).toISOString().slice(0, 10),
      messages: i,
      dmarc_pass: Math.floor(i / 2),
    }));
    const svg = volumeChart(year, { id: 'y', label: 'Year' });
    const xs = [...svg.matchAll(/<rect x="([\d.]+)"[^>]*width="([\d.]+)"/g)].map(
      (m) => Number(m[1]) + Number(m[2]),
    );
    expect(Math.max(...xs)).toBeLessThanOrEqual(552.01);
  });
});
