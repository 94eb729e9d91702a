/**
 * The page a browser gets for an error outside the API (an unknown page, a wrong method, a
 * malformed request): the status in words, what went wrong and the ways back. Programs calling
 * /v1 and the other JSON paths keep the JSON error envelope.
 */
import { esc, page } from './html.ts';

const TITLES: Record<number, string> = {
  400: 'That request could not be read',
  404: 'Page not found',
  405: 'That page does not take this kind of request',
  413: 'That is too much to send',
  429: 'Too many requests',
  500: 'Something went wrong on our side',
  503: 'Try again shortly',
};

export function errorPage(options: { status: number; message: string; path: string }): string {
  const title = TITLES[options.status] ?? (options.status >= 500 ? TITLES[500] : TITLES[400]) ?? 'Error';
  const what =
    options.status === 404
      ? `<p>There is no page at <code>${esc(options.path)}</code>.</p>`
      : `<p class="error" role="alert">${esc(options.message)}</p>`;
  return page(
    title,
    `<h1>${esc(title)}</h1>${what}
<p>From here: <a href="/">the start page and its tools</a>, <a href="/dashboard">the dashboard</a> or <a href="/docs">the API docs</a>.</p>`,
  );
}
