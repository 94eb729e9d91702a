/**
 * The blocklist tool page (`/tools/blocklist`): netrep's own zone's answer for one IP address.
 * Every value is escaped with `esc`; the answer is the API's `CheckAnswer` shape.
 */
import type { CheckAnswer } from '../blocklist/index.ts';
import { describedBy, esc, facts, page, problem } from './html.ts';

export function blocklistToolPage(options: { ip?: string; answer?: CheckAnswer; error?: string }): string {
  const a = options.answer;
  const result = a
    ? `<section aria-labelledby="bl-h"><h2 id="bl-h">${esc(a.ip)}</h2>${
        a.listing
          ? `<p class="listed"><strong>Listed</strong> for ${esc(a.listing.type)}.</p>${facts([
              ['Reason', a.listing.reason],
              ['DNS answer', a.listing.return_code],
              ['Listed since', a.listing.listed_at],
              ['Expires', a.listing.expires_at ?? 'never (permanent)'],
            ])}`
          : '<p class="clean"><strong>Not listed.</strong></p>'
      }</section>`
    : '';
  const body = `<h1>Blocklist check</h1>
<form method="get" action="/tools/blocklist" class="tool">${problem(options.error)}
<label for="ip">IP address (IPv4 or IPv6)</label>
<input type="text" id="ip" name="ip" value="${esc(options.ip)}" required maxlength="100" autocomplete="off" spellcheck="false"${describedBy(options.error)}>
<button type="submit">Check</button></form>
${result}`;
  return page(options.ip ? `Blocklist check ${options.ip}` : 'Blocklist check', body);
}
