/**
 * A key's requests per day as a server-rendered SVG bar chart with axes and labels: the y axis
 * from 0 to a round maximum with whole-number ticks (the middle one when it is whole), the x axis with the first, middle and last day,
 * a title and a description for screen readers, and each bar's day and count on hover.
 */
import type { UsageDay } from '../accounts/index.ts';
import { esc } from './html.ts';

const W = 280;
const H = 120;
const LEFT = 40;
const RIGHT = 8;
const TOP = 18;
const BOTTOM = 20;

/** The smallest 1, 2 or 5 × 10^k at or above `n` (at least 1): the top of the y axis. */
export function roundMax(n: number): number {
  if (n <= 1) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  for (const m of [1, 2, 5, 10]) if (m * p >= n) return m * p;
  return 10 * p;
}

/** A count in at most four characters or so: 999, 1.2k, 3.4M (axis labels). */
export function compact(n: number): string {
  if (n >= 1_000_000) return `${+(n / 1_000_000).toFixed(1)}M`;
  if (n >= 1000) return `${+(n / 1000).toFixed(1)}k`;
  return String(n);
}

export function usageChart(usage: readonly UsageDay[], options: { id: string; label: string }): string {
  const total = usage.reduce((a, u) => a + u.requests, 0);
  const peak = usage.reduce<UsageDay | null>(
    (best, u) => (best && best.requests >= u.requests ? best : u),
    null,
  );
  const top = roundMax(peak?.requests ?? 0);
  const plotW = W - LEFT - RIGHT;
  const plotH = H - TOP - BOTTOM;
  const step = usage.length > 0 ? plotW / usage.length : plotW;
  const bars = usage
    .map((u, i) => {
      const h = (u.requests / top) * plotH;
      return `<rect x="${(LEFT + i * step + 0.5).toFixed(1)}" y="${(TOP + plotH - h).toFixed(1)}" width="${Math.max(1, step - 1).toFixed(1)}" height="${h.toFixed(1)}"><title>${esc(u.day)}: ${u.requests.toLocaleString('en')}</title></rect>`;
    })
    .join('');
  // Requests are whole: a middle tick only where it is a whole number (no "0.5 requests/day").
  const yTicks = [0, top / 2, top]
    .filter(Number.isInteger)
    .map((v) => {
      const y = TOP + plotH - (v / top) * plotH;
      return `<line x1="${LEFT - 3}" x2="${W - RIGHT}" y1="${y}" y2="${y}" class="grid"/><text x="${LEFT - 5}" y="${y + 3}" text-anchor="end">${esc(compact(v))}</text>`;
    })
    .join('');
  const xIdx =
    usage.length === 0 ? [] : [...new Set([0, Math.floor((usage.length - 1) / 2), usage.length - 1])];
  const xTicks = xIdx
    .map((i) => {
      const x = LEFT + i * step + step / 2;
      const anchor = i === 0 ? 'start' : i === usage.length - 1 ? 'end' : 'middle';
      const tx = i === 0 ? LEFT : i === usage.length - 1 ? W - RIGHT : x;
      return `<text x="${tx.toFixed(1)}" y="${H - 5}" text-anchor="${anchor}">${esc(usage[i]?.day.slice(5) ?? '')}</text>`;
    })
    .join('');
  const first = usage[0]?.day ?? '';
  const last = usage.at(-1)?.day ?? '';
  const desc =
    usage.length === 0
      ? 'No data.'
      : `${usage.length} days from ${first} to ${last}: ${total.toLocaleString('en')} requests in all${
          peak && peak.requests > 0 ? `, most on ${peak.day} (${peak.requests.toLocaleString('en')})` : ''
        }.`;
  return `<figure class="chart"><svg viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${options.id}-t ${options.id}-d" xmlns="http://www.w3.org/2000/svg">
<title id="${options.id}-t">${esc(options.label)}</title><desc id="${options.id}-d">${esc(desc)}</desc>
<text x="2" y="11" class="axis-title">requests/day</text>${yTicks}
<g class="bars">${bars}</g>
<line x1="${LEFT}" x2="${LEFT}" y1="${TOP}" y2="${TOP + plotH}" class="axis"/><line x1="${LEFT}" x2="${W - RIGHT}" y1="${TOP + plotH}" y2="${TOP + plotH}" class="axis"/>${xTicks}
</svg><figcaption class="muted">${total.toLocaleString('en')} in ${usage.length} days (UTC)</figcaption></figure>`;
}
