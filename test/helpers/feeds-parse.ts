/**
 * Independent readers of the encoded formats, used to check that every format carries exactly
 * the feed's network set. They are strict: a line they do not understand throws.
 */
import { parse } from 'csv-parse/sync';
import { parseCidr } from '../../src/core/ip.ts';

/** Canonical CIDR text for comparing network sets across formats. */
export function cidrOf(text: string): string {
  const c = parseCidr(text, { strict: true });
  if (!c) throw new Error(`not a canonical network: ${JSON.stringify(text)}`);
  return c.cidr;
}

export function csvRecords(text: string): Record<string, string>[] {
  return parse(text, { columns: true }) as Record<string, string>[];
}

export function csvNetworks(text: string): string[] {
  return csvRecords(text).map((r) => cidrOf(r.network ?? ''));
}

export function plainNetworks(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map(cidrOf);
}

function dataLines(text: string, comment: string): string[] {
  return text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith(comment));
}

export function nginxNetworks(text: string): string[] {
  return dataLines(text, '#').map((l) => {
    const m = /^deny ([0-9a-f.:/]+);$/.exec(l);
    if (!m?.[1]) throw new Error(`not a deny line: ${l}`);
    return cidrOf(m[1]);
  });
}

export function caddyNetworks(text: string): string[] {
  const out: string[] = [];
  for (const l of dataLines(text, '#')) {
    const m = /^\tremote_ip((?: [0-9a-f.:/]+)+)$/.exec(l);
    if (m?.[1]) out.push(...m[1].trim().split(' ').map(cidrOf));
    else if (!/^@netrep_[a-z_]+ \{$|^\}$|^respond @netrep_[a-z_]+ 403$/.test(l))
      throw new Error(`caddy line: ${l}`);
  }
  return out;
}

/** `(ip.src in {a b ...})` per line: a strict little parser of the expression grammar we emit. */
export function cloudflareExpressions(text: string): string[][] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      if (l.length >= 4096) throw new Error(`expression of ${l.length} characters`);
      const m = /^\(ip\.src in \{([^{}()]+)\}\)$/.exec(l);
      if (!m?.[1]) throw new Error(`malformed expression: ${l.slice(0, 80)}`);
      const tokens = m[1].split(' ');
      if (tokens.some((t) => t === '')) throw new Error('empty list item');
      return tokens.map(cidrOf);
    });
}

/** Back from an RPZ trigger name to the network it stands for. */
export function rpzNetwork(name: string): string {
  const labels = name.replace(/\.rpz-ip$/, '').split('.');
  const prefix = labels.shift();
  const rest = labels.reverse();
  if (rest.length === 4 && rest.every((l) => /^\d+$/.test(l))) return cidrOf(`${rest.join('.')}/${prefix}`);
  const addr = rest.map((l) => (l === 'zz' ? '' : l)).join(':');
  const fixed =
    addr === '' ? '::' : addr.startsWith(':') ? `:${addr}` : addr.endsWith(':') ? `${addr}:` : addr;
  return cidrOf(`${fixed}/${prefix}`);
}

export function bindNetworks(text: string): string[] {
  const out: string[] = [];
  for (const l of dataLines(text, ';')) {
    if (l.startsWith('$TTL') || l.startsWith('@ IN ')) continue;
    const m = /^(\S+\.rpz-ip) CNAME \.$/.exec(l);
    if (!m?.[1]) throw new Error(`zone line: ${l}`);
    out.push(rpzNetwork(m[1]));
  }
  return out;
}
