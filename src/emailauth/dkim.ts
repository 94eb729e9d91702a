/**
 * DKIM key records (RFC 6376 §3.6.1, RFC 8463 ed25519, RFC 8301 key sizes). The key size is
 * read from the published key itself with node:crypto, never guessed from its length.
 */
import { createPublicKey } from 'node:crypto';
import type { DnsClient } from '../core/dns/index.ts';
import { isAbsent, isDnsError } from '../core/dns/index.ts';
import { forEachTag } from './tag-list.ts';
import type { Checked, DkimResult } from './types.ts';

/** Selectors probed when the caller names none (spec §4 rule 4: only found ones are returned). */
export const DEFAULT_DKIM_SELECTORS: readonly string[] = [
  'google',
  'default',
  'selector1',
  'selector2',
  'k1',
  'k2',
  's1',
  's2',
  'dkim',
  'mail',
];

export const MIN_RSA_BITS = 1024;
const SELECTOR = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/i;
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export interface ParsedDkim {
  version: string | null;
  key_type: 'rsa' | 'ed25519' | null;
  key_bits: number | null;
  hash_algorithms: string[];
  service_type: string | null;
  flags: string[];
  testing: boolean;
  revoked: boolean;
  notes: string | null;
  tags: Record<string, string>;
  errors: string[];
  warnings: string[];
}

/** True for a selector name that can be a DNS label sequence (RFC 6376 §3.1). */
export function isValidSelector(selector: string): boolean {
  return selector.length <= 200 && SELECTOR.test(selector);
}

function keyBits(type: 'rsa' | 'ed25519', der: Buffer, errors: string[]): number | null {
  try {
    if (type === 'ed25519') {
      // RFC 8463 §4.2: p= is the raw 32-byte key; a SPKI-wrapped key is accepted too.
      const spki = der.length === 32 ? Buffer.concat([ED25519_SPKI_PREFIX, der]) : der;
      const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
      if (key.asymmetricKeyType !== 'ed25519') throw new Error('not ed25519');
      return 256;
    }
    let key: ReturnType<typeof createPublicKey>;
    try {
      key = createPublicKey({ key: der, format: 'der', type: 'spki' });
    } catch {
      // Some publishers put a bare PKCS#1 RSAPublicKey in p=.
      key = createPublicKey({ key: der, format: 'der', type: 'pkcs1' });
    }
    if (key.asymmetricKeyType !== 'rsa') {
      errors.push(`p= holds a ${key.asymmetricKeyType ?? 'unknown'} key, but k= says rsa`);
      return null;
    }
    return key.asymmetricKeyDetails?.modulusLength ?? null;
  } catch {
    errors.push(`p= is not a valid ${type === 'rsa' ? 'RSA' : 'ed25519'} public key`);
    return null;
  }
}

/** A key record's fields before any tag is read (fresh lists each call). */
function dkimDefaults(): Omit<ParsedDkim, 'tags' | 'errors' | 'warnings'> {
  return {
    version: null,
    key_type: null,
    key_bits: null,
    hash_algorithms: [],
    service_type: null,
    flags: [],
    testing: false,
    revoked: false,
    notes: null,
  };
}

export function parseDkimRecord(raw: string): ParsedDkim {
  const out: ParsedDkim = {
    ...dkimDefaults(),
    tags: {},
    errors: [],
    warnings: [],
  };
  forEachTag(
    raw,
    {},
    (name, value, index) => {
      out.tags[name] = value;
      if (name === 'v' && index !== 0) out.errors.push('v= must be the first tag');
    },
    (message) => out.errors.push(message),
  );
  readTags(out);
  readKey(out);
  return out;
}

/** The tags besides p= (RFC 6376 §3.6.1), each checked where it is read. */
function readTags(out: ParsedDkim): void {
  const tags = out.tags;
  if (tags['v'] !== undefined) {
    out.version = tags['v'];
    if (tags['v'] !== 'DKIM1') out.errors.push(`invalid v= value "${tags['v']}": must be DKIM1`);
  }
  const k = (tags['k'] ?? 'rsa').toLowerCase();
  if (k === 'rsa' || k === 'ed25519') out.key_type = k;
  else out.errors.push(`unsupported key type k=${tags['k']}`);
  readLists(out);
}

/** h=, s= and t= (colon-separated lists) and n=. */
function readLists(out: ParsedDkim): void {
  const tags = out.tags;
  if (tags['h'] !== undefined) {
    out.hash_algorithms = colonList(tags['h']);
    if (!out.hash_algorithms.includes('sha256')) {
      out.errors.push('h= does not allow sha256; sha1 signatures are not valid (RFC 8301)');
    }
  }
  if (tags['s'] !== undefined) {
    out.service_type = tags['s'];
    const services = colonList(tags['s']);
    if (!services.includes('*') && !services.includes('email')) out.errors.push('s= excludes email');
  }
  if (tags['t'] !== undefined) {
    out.flags = colonList(tags['t']);
    out.testing = out.flags.includes('y');
  }
  if (tags['n'] !== undefined) out.notes = tags['n'];
}

function colonList(value: string): string[] {
  return value.split(':').map((v) => v.trim().toLowerCase());
}

/** p=: present, not revoked, base64, and a key of an accepted size (RFC 8301). */
function readKey(out: ParsedDkim): void {
  const p = out.tags['p'];
  if (p === undefined) {
    out.errors.push('required tag p= is missing');
    return;
  }
  const base64 = p.replace(/\s+/g, '');
  if (base64 === '') {
    out.revoked = true;
    out.errors.push('key revoked (empty p=)');
    return;
  }
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64) || base64.length % 4 !== 0) {
    out.errors.push('p= is not valid base64');
    return;
  }
  if (!out.key_type) return;
  out.key_bits = keyBits(out.key_type, Buffer.from(base64, 'base64'), out.errors);
  if (out.key_type === 'rsa' && out.key_bits !== null && out.key_bits < MIN_RSA_BITS) {
    out.errors.push(`RSA key of ${out.key_bits} bits is below the ${MIN_RSA_BITS}-bit minimum (RFC 8301)`);
  }
}

/** A TXT record that is meant as a DKIM key: starts with v=DKIM1 or carries a p= tag. */
function looksLikeDkim(text: string): boolean {
  return /^\s*v\s*=\s*DKIM1/i.test(text) || /(^|;)\s*p\s*=/.test(text);
}

export function emptyDkim(selector: string, domain: string): DkimResult {
  return {
    selector,
    record_domain: `${selector}._domainkey.${domain}`,
    found: false,
    raw: null,
    ...dkimDefaults(),
    is_valid: false,
    validation_errors: [],
  };
}

export async function checkDkimSelector(
  domain: string,
  selector: string,
  dns: DnsClient,
): Promise<Checked<DkimResult>> {
  const result = emptyDkim(selector, domain);
  if (!isValidSelector(selector)) {
    result.validation_errors.push(`"${selector}" is not a valid selector name`);
    return { result, status: 'absent' };
  }
  let rows: string[][];
  try {
    rows = await dns.txt(result.record_domain);
  } catch (err) {
    if (!isAbsent(err)) {
      const code = isDnsError(err) ? err.code : 'error';
      result.validation_errors.push(`DNS ${code} while looking up ${result.record_domain} TXT`);
      return { result, status: 'temperror' };
    }
    return { result, status: 'absent' };
  }
  const records = rows.map((r) => r.join('')).filter(looksLikeDkim);
  const [raw, ...others] = records;
  if (raw === undefined) return { result, status: 'absent' };
  const parsed = parseDkimRecord(raw);
  const errors = [...parsed.errors];
  if (others.length > 0)
    errors.push(`${records.length} key records at ${result.record_domain}; verifiers may pick any`);
  const found: DkimResult = {
    ...result,
    found: true,
    raw,
    version: parsed.version,
    key_type: parsed.key_type,
    key_bits: parsed.key_bits,
    hash_algorithms: parsed.hash_algorithms,
    service_type: parsed.service_type,
    flags: parsed.flags,
    testing: parsed.testing,
    revoked: parsed.revoked,
    notes: parsed.notes,
    is_valid: errors.length === 0 && parsed.key_bits !== null,
    validation_errors: errors,
  };
  return { result: found, status: 'found' };
}
