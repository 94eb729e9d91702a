/**
 * The SSRF guard (CONTRACT §11): a webhook URL is http(s) without credentials; its host is
 * resolved once and every address must reach public unicast (no loopback, private, link-local,
 * CGNAT, multicast, reserved or special IPv6 space; an IPv6 address that carries an IPv4 one,
 * mapped, compatible, NAT64, 6to4 or Teredo, is judged by the IPv4 address it reaches: reach.ts)
 * unless private delivery is allowed. The delivery then connects to the checked address itself,
 * so a second resolution (DNS rebinding) cannot change the target; it is checked again on every
 * attempt.
 */
import { parseIp } from '../core/ip.ts';
import { refusedReach } from './reach.ts';

export const MAX_URL_LENGTH = 2048;

/** Resolves a host name to its addresses (A and AAAA); an unknown name gives []. */
export type ResolveHost = (host: string) => Promise<string[]>;

/** A and AAAA through the service's DNS client; fails only when neither query answered. */
export function hostResolverOf(dns: {
  a(name: string): Promise<string[]>;
  aaaa(name: string): Promise<string[]>;
}): ResolveHost {
  return async (host) => {
    const answers = await Promise.allSettled([dns.a(host), dns.aaaa(host)]);
    const found = answers.flatMap((a) => (a.status === 'fulfilled' ? a.value : []));
    if (found.length === 0 && answers[0].status === 'rejected' && answers[1].status === 'rejected')
      throw answers[0].reason;
    return found;
  };
}

export type Target =
  | { ok: true; url: URL; host: string; address: string; family: 4 | 6 }
  | { ok: false; reason: string };

/** The URL as a webhook may have it, or why not. */
export function parseWebhookUrl(
  text: unknown,
): { ok: true; url: URL; host: string } | { ok: false; reason: string } {
  if (typeof text !== 'string' || text.length === 0)
    return { ok: false, reason: 'url must be a non-empty string' };
  if (text.length > MAX_URL_LENGTH)
    return { ok: false, reason: `url is longer than ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'url is not a valid absolute URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, reason: 'url must use http or https' };
  if (url.username !== '' || url.password !== '')
    return { ok: false, reason: 'url must not carry credentials' };
  // WHATWG URL already turned 0x7f.1, 2130706433 and the like into a dotted quad.
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (host === '') return { ok: false, reason: 'url has no host' };
  return { ok: true, url, host };
}

/** Why an address may not receive deliveries, or null when it reaches public unicast. */
export const refusedAddress = refusedReach;

/**
 * Resolves and checks a webhook URL. Every resolved address must pass (a name answering one
 * public and one private address is refused); the first is the one to connect to.
 */
export async function resolveTarget(
  text: unknown,
  options: { resolve: ResolveHost; allowPrivate: boolean },
): Promise<Target> {
  const parsed = parseWebhookUrl(text);
  if (!parsed.ok) return parsed;
  const { url, host } = parsed;
  let addresses: string[];
  const literal = parseIp(host);
  if (literal) addresses = [literal.address];
  else if (/(^|\.)localhost\.?$/i.test(host))
    // RFC 6761 §6.3: always loopback, whatever a resolver says.
    addresses = ['127.0.0.1'];
  else {
    try {
      addresses = await options.resolve(host);
    } catch (err) {
      return { ok: false, reason: `${host} cannot be resolved: ${(err as Error).message}` };
    }
  }
  const first = addresses.map((a) => parseIp(a)).find((a) => a !== null);
  if (!first) return { ok: false, reason: `${host} has no address` };
  if (!options.allowPrivate) {
    for (const a of addresses) {
      const why = refusedAddress(a);
      if (why) return { ok: false, reason: `delivery to ${host} refused: ${why}` };
    }
  }
  return { ok: true, url, host, address: first.address, family: first.family };
}
