import { commentHeader, type EncoderFactory } from './encoder.ts';

const DENY = Buffer.from('deny ');
const END = Buffer.from(';\n');

/** `deny <network>;` lines, includable in an http, server or location block (ngx_http_access_module). */
export const createNginxEncoder: EncoderFactory = (ctx) => ({
  header: () =>
    commentHeader(ctx, '#', [
      `Usage: include /etc/nginx/netrep/${ctx.feed.name}.conf; inside an http, server or location block.`,
    ]),
  row: (r, out) => {
    out.bytes(DENY);
    out.range(r.buf, r.netStart, r.netEnd);
    out.bytes(END);
  },
  footer: () => '',
});
