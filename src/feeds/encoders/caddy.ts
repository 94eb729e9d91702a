import { commentHeader, type EncoderFactory } from './encoder.ts';

const RANGES_PER_LINE = 64;

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
    row: ({ row }) => {
      const at = count++ % RANGES_PER_LINE;
      const open = count === 1 ? `@${matcher} {\n` : '';
      const lead = at === 0 ? `${count === 1 ? '' : '\n'}\tremote_ip` : '';
      return `${open}${lead} ${row.network}`;
    },
    footer: () => (count === 0 ? '' : `\n}\nrespond @${matcher} 403\n`),
  };
};
