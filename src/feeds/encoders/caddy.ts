import { commentHeader, type EncoderFactory } from './encoder.ts';

const RANGES_PER_LINE = 64;
const REMOTE_IP = Buffer.from('\tremote_ip');
const NEXT_REMOTE_IP = Buffer.from('\n\tremote_ip');

export function caddyMatcherName(feed: string): string {
  return `netrep_${feed}`;
}

/**
 * Site-block directives: a named `remote_ip` matcher holding every network, and `respond 403`
 * for it. Repeated `remote_ip` lines in one matcher block are OR-ed together by Caddy.
 * A Caddyfile imports the file inside a site block; an empty feed yields comments only.
 */
export const createCaddyEncoder: EncoderFactory = (ctx) => {
  const matcher = caddyMatcherName(ctx.feed.name);
  let count = 0;
  return {
    header: () =>
      commentHeader(ctx, '#', [
        `Usage: import /etc/caddy/netrep/${ctx.feed.name}.caddy inside a site block;`,
        `requests from a listed network get 403 through the @${matcher} matcher.`,
      ]),
    row: (r, out) => {
      const at = count++ % RANGES_PER_LINE;
      if (count === 1) out.text(`@${matcher} {\n`);
      if (at === 0) out.bytes(count === 1 ? REMOTE_IP : NEXT_REMOTE_IP);
      out.byte(32);
      out.range(r.buf, r.netStart, r.netEnd);
    },
    footer: () => (count === 0 ? '' : `\n}\nrespond @${matcher} 403\n`),
  };
};
