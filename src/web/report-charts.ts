/**
 * A domain's DMARC aggregate series as server-rendered SVG bar charts (the dashboard allows no
 * script): messages per day stacked as DMARC pass and fail, and the pass rate per day. Axes with
 * labels, a title and a description for screen readers, each bar's day and numbers on hover;
 * drawn as usage-chart.ts draws a key's requests.
 */
import type { DomainSummary } from '../reports/index.ts';
import { esc } from './html.ts';
import { compact, roundMax } from './usage-chart.ts';

/** A day of the summary's series (the API's `daily` points). */
type DayPoint = DomainSummary['daily'][number];

const W = 560;
const H = 170;
const LEFT = 46;
const RIGHT = 8;
const TOP = 20;
const BOTTOM = 22;
const PLOT_W = W - LEFT - RIGHT;
const PLOT_H = H - TOP - BOTTOM;
export const PASS_FILL = '#1f6feb';
export const FAIL_FILL = '#c62828';

const percent = (rate: number) => `${+(rate * 100).toFixed(1)}%`;
const count = (n: number) => n.toLocaleString('en');

/** One bar of a day: its parts from the bottom up (values in the axis's unit) and its hover text. */
interface Bar {
  parts: { value: number; fill: string }[];
  title: string;
}

function frame(days: readonly DayPoint[], ticks: { value: number; label: string }[], top: number): string {
  const y = (v: number) => TOP + PLOT_H - (v / top) * PLOT_H;
  const yTicks = ticks
    .map(
      (t) =>
        `<line x1="${LEFT - 3}" x2="${W - RIGHT}" y1="${y(t.value).toFixed(1)}" y2="${y(t.value).toFixed(1)}" class="grid"/><text x="${LEFT - 5}" y="${(y(t.value) + 3).toFixed(1)}" text-anchor="end">${esc(t.label)}</text>`,
    )
    .join('');
  const step = days.length > 0 ? PLOT_W / days.length : PLOT_W;
  const last = days.length - 1;
  const xTicks = [...new Set(days.length === 0 ? [] : [0, Math.floor(last / 2), last])]
    .map((i) => {
      const anchor = i === 0 ? 'start' : i === last ? 'end' : 'middle';
      const x = i === 0 ? LEFT : i === last ? W - RIGHT : LEFT + i * step + step / 2;
      return `<text x="${x.toFixed(1)}" y="${H - 6}" text-anchor="${anchor}">${esc(days[i]?.date ?? '')}</text>`;
    })
    .join('');
  const axes = `<line x1="${LEFT}" x2="${LEFT}" y1="${TOP}" y2="${TOP + PLOT_H}" class="axis"/><line x1="${LEFT}" x2="${W - RIGHT}" y1="${TOP + PLOT_H}" y2="${TOP + PLOT_H}" class="axis"/>`;
  return `${yTicks}${axes}${xTicks}`;
}

function bars(list: readonly Bar[], top: number): string {
  const step = list.length > 0 ? PLOT_W / list.length : PLOT_W;
  const width = Math.max(0.5, step - (step > 3 ? 1 : 0)).toFixed(2);
  return list
    .map((bar, i) => {
      let base = TOP + PLOT_H;
      const rects = bar.parts
        .filter((p) => p.value > 0)
        .map((p) => {
          const h = (p.value / top) * PLOT_H;
          base -= h;
          return `<rect x="${(LEFT + i * step).toFixed(2)}" y="${base.toFixed(2)}" width="${width}" height="${h.toFixed(2)}" fill="${p.fill}"/>`;
        })
        .join('');
      return rects === '' ? '' : `<g><title>${esc(bar.title)}</title>${rects}</g>`;
    })
    .join('');
}

function figure(o: {
  id: string;
  label: string;
  desc: string;
  unit: string;
  body: string;
  caption: string;
}): string {
  return `<figure class="chart" style="flex:1 1 22rem;max-width:36rem"><svg viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${o.id}-t ${o.id}-d" xmlns="http://www.w3.org/2000/svg">
<title id="${o.id}-t">${esc(o.label)}</title><desc id="${o.id}-d">${esc(o.desc)}</desc>
<text x="2" y="12">${esc(o.unit)}</text>${o.body}
</svg><figcaption class="muted">${o.caption}</figcaption></figure>`;
}

const span = (days: readonly DayPoint[]) =>
  days.length === 0 ? 'No days.' : `${days.length} days from ${days[0]?.date} to ${days.at(-1)?.date}`;

/** Messages per day, each bar DMARC passes (blue, below) and fails (red, above). */
export function volumeChart(days: readonly DayPoint[], options: { id: string; label: string }): string {
  const messages = days.reduce((s, d) => s + d.messages, 0);
  const pass = days.reduce((s, d) => s + d.dmarc_pass, 0);
  const peak = days.reduce<DayPoint | null>((b, d) => (b && b.messages >= d.messages ? b : d), null);
  const top = roundMax(peak?.messages ?? 0);
  const ticks = [0, top / 2, top].filter(Number.isInteger).map((v) => ({ value: v, label: compact(v) }));
  const list = days.map((d) => ({
    parts: [
      { value: d.dmarc_pass, fill: PASS_FILL },
      { value: d.messages - d.dmarc_pass, fill: FAIL_FILL },
    ],
    title: `${d.date}: ${count(d.messages)} messages, ${count(d.dmarc_pass)} pass DMARC, ${count(d.messages - d.dmarc_pass)} fail`,
  }));
  const desc =
    messages === 0
      ? `${span(days)}: no messages reported.`
      : `${span(days)}: ${count(messages)} messages, ${count(pass)} passing DMARC and ${count(messages - pass)} failing${
          peak ? `; most on ${peak.date} (${count(peak.messages)})` : ''
        }.`;
  return figure({
    ...options,
    desc,
    unit: 'messages/day',
    body: `${frame(days, ticks, top)}${bars(list, top)}`,
    caption: `<span style="color:${PASS_FILL}">■</span> DMARC pass · <span style="color:${FAIL_FILL}">■</span> DMARC fail · ${count(messages)} messages in ${days.length} days (UTC)`,
  });
}

/** The share of each day's messages that passed DMARC, 0-100 %; a day with no messages has no bar. */
export function passRateChart(days: readonly DayPoint[], options: { id: string; label: string }): string {
  const withMail = days.filter((d) => d.messages > 0);
  const ticks = [0, 50, 100].map((v) => ({ value: v, label: `${v}%` }));
  const list = days.map((d) => {
    const rate = d.messages === 0 ? 0 : d.dmarc_pass / d.messages;
    return {
      parts: [{ value: rate * 100, fill: rate >= 0.95 ? PASS_FILL : FAIL_FILL }],
      title:
        d.messages === 0
          ? `${d.date}: no messages`
          : `${d.date}: ${percent(rate)} pass DMARC (${count(d.dmarc_pass)} of ${count(d.messages)})`,
    };
  });
  const rates = withMail.map((d) => d.dmarc_pass / d.messages);
  const worst = withMail.reduce<DayPoint | null>(
    (b, d) => (b && b.dmarc_pass / b.messages <= d.dmarc_pass / d.messages ? b : d),
    null,
  );
  const desc =
    withMail.length === 0
      ? `${span(days)}: no messages reported, so no pass rate.`
      : `${span(days)}, ${withMail.length} with messages: the daily DMARC pass rate ranged from ${percent(Math.min(...rates))} to ${percent(Math.max(...rates))}${
          worst ? `, lowest on ${worst.date}` : ''
        }.`;
  return figure({
    ...options,
    desc,
    unit: 'DMARC pass rate',
    body: `${frame(days, ticks, 100)}${bars(list, 100)}`,
    caption: `Below 95 % in red; days with no messages have no bar. ${withMail.length} of ${days.length} days with messages (UTC)`,
  });
}
