import { commentHeader, type EncoderFactory } from './encoder.ts';

/** `deny <network>;` lines, includable in an http, server or location block (ngx_http_access_module). */
export const createNginxEncoder: EncoderFactory = (ctx) => ({
  header: () =>
    commentHeader(ctx, '#', [
      `Usage: include /etc/nginx/netrep/${ctx.feed.name}.conf; inside an http, server or location block.`,
    ]),
  row: ({ row }) => `deny ${row.network};\n`,
  footer: () => '',
});
