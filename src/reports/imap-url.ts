/**
 * NETREP_REPORTS_IMAP_URL: where the poller reads reports from.
 *
 *   imaps://USER:PASSWORD@HOST[:993][/FOLDER]       TLS from the first byte
 *   imap://USER:PASSWORD@HOST[:143][/FOLDER]        STARTTLS, required: no upgrade, no login
 *   imap://USER:PASSWORD@HOST[:143][/FOLDER]?starttls=off   plain text (a server on the same host)
 *
 * USER and PASSWORD are percent-encoded (`dmarc%40example.com`); FOLDER defaults to INBOX, its
 * levels separated by `/` whatever the server's own separator is (`/Reports/DMARC`).
 */

export interface MailboxAddress {
  host: string;
  port: number;
  /** `implicit`: imaps; `starttls`: imap upgraded before login; `none`: imap with starttls=off. */
  tls: 'implicit' | 'starttls' | 'none';
  user: string;
  password: string;
  /** The folder's levels (`['Reports', 'DMARC']`). */
  folder: string[];
  /** The URL without its password: the lease's key and what logs and metrics name. */
  name: string;
}

function fail(why: string): never {
  throw new Error(`NETREP_REPORTS_IMAP_URL: ${why}`);
}

/** A folder setting's levels: `netrep/processed` → `['netrep', 'processed']`. */
export function folderLevels(folder: string, what: string): string[] {
  const levels = folder.split('/').filter((l) => l !== '');
  if (levels.length === 0) throw new Error(`${what}: a folder name is needed`);
  for (const l of levels)
    if ([...l].some((c) => c.charCodeAt(0) < 0x20 || c === '\u007f' || c === '*' || c === '%'))
      throw new Error(`${what}: ${JSON.stringify(l)} is not a folder name`);
  return levels;
}

function decoded(part: string, what: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return fail(`the ${what} is not valid percent-encoding`);
  }
}

function tlsOf(url: URL): MailboxAddress['tls'] {
  const keys = [...url.searchParams.keys()];
  const unknown = keys.find((k) => k !== 'starttls');
  if (unknown !== undefined) fail(`unknown parameter ${JSON.stringify(unknown)} (only starttls=off)`);
  const starttls = url.searchParams.get('starttls');
  if (url.protocol === 'imaps:') {
    if (starttls !== null) fail('starttls applies to imap:// only (imaps:// is TLS from the start)');
    return 'implicit';
  }
  if (starttls === null || starttls === 'required') return 'starttls';
  if (starttls === 'off') return 'none';
  return fail(`starttls must be off or required, not ${JSON.stringify(starttls)}`);
}

export function parseMailboxUrl(raw: string): MailboxAddress {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail('not a URL (imaps://user:password@host:993/INBOX)');
  }
  if (url.protocol !== 'imaps:' && url.protocol !== 'imap:')
    fail(`the scheme must be imaps or imap, not ${url.protocol.replace(/:$/, '')}`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') fail('no host');
  if (url.username === '' || url.password === '') fail('a user and a password are needed');
  const tls = tlsOf(url);
  const port = url.port === '' ? (tls === 'implicit' ? 993 : 143) : Number(url.port);
  const folderPath = decoded(url.pathname.replace(/^\/+/, ''), 'folder');
  const folder = folderPath === '' ? ['INBOX'] : folderLevels(folderPath, 'NETREP_REPORTS_IMAP_URL');
  const user = decoded(url.username, 'user');
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const query = tls === 'none' ? '?starttls=off' : '';
  return {
    host,
    port,
    tls,
    user,
    password: decoded(url.password, 'password'),
    folder,
    name: `${url.protocol}//${encodeURIComponent(user)}@${hostPart}:${port}/${folder.join('/')}${query}`,
  };
}
