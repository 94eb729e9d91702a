/**
 * MTA-STS syntax (RFC 8461): the `_mta-sts` TXT record (§3.1) and the policy file (§3.2), read
 * strictly, with MX pattern matching (§4.1). Facts and problems only; advice is in mta-sts.ts.
 */

/** RFC 8461 §3.2: max_age is at most 31557600 seconds (about a year). */
export const MAX_MAX_AGE = 31_557_600;
const WSP = /^[ \t]+|[ \t]+$/g;
const EXT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/;
const EXT_VALUE = /^[\x21-\x3a\x3c\x3e-\x7e]+$/;
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const MX_PATTERN = new RegExp(`^(\\*\\.)?${LABEL}(\\.${LABEL})+$`, 'i');

/** A TXT record that means to be MTA-STS (the version written loosely counts, and is then an error). */
export function isStsRecord(text: string): boolean {
  return /^[ \t]*v[ \t]*=[ \t]*stsv1/i.test(text);
}

export interface ParsedStsRecord {
  id: string | null;
  errors: string[];
}

function readStsField(out: ParsedStsRecord, field: string, seen: Set<string>): void {
  const eq = field.indexOf('=');
  const name = eq > 0 ? field.slice(0, eq) : '';
  const value = eq > 0 ? field.slice(eq + 1) : '';
  if (!EXT_NAME.test(name) || !EXT_VALUE.test(value)) {
    out.errors.push(`malformed field "${field}" (expected name=value)`);
    return;
  }
  if (seen.has(name)) out.errors.push(`duplicate field ${name}=`);
  else if (name === 'id' && /^[A-Za-z0-9]{1,32}$/.test(value)) out.id = value;
  else if (name === 'id') out.errors.push(`id= must be 1-32 letters and digits (found "${value}")`);
  seen.add(name);
}

/** RFC 8461 §3.1: `v=STSv1; id=<1-32 alphanumerics>[; ext=value]*[;]`, the version exactly first. */
export function parseStsRecord(raw: string): ParsedStsRecord {
  const out: ParsedStsRecord = { id: null, errors: [] };
  const fields = raw.split(';').map((f) => f.replace(WSP, ''));
  if (fields.length > 1 && fields.at(-1) === '') fields.pop();
  if (fields[0] !== 'v=STSv1')
    out.errors.push(`the record must begin with exactly "v=STSv1" (found "${fields[0]}")`);
  const seen = new Set<string>();
  for (const field of fields.slice(1)) readStsField(out, field, seen);
  if (!seen.has('id')) out.errors.push('the record has no id= field');
  return out;
}

export interface ParsedPolicy {
  version: string | null;
  mode: 'enforce' | 'testing' | 'none' | null;
  mx: string[];
  max_age: number | null;
  errors: string[];
  warnings: string[];
}

type FieldRule = (out: ParsedPolicy, value: string) => string | null;

const POLICY_FIELDS: Readonly<Record<string, FieldRule>> = {
  version: (out, value) => {
    out.version = value;
    return value === 'STSv1' ? null : `version: must be STSv1 (found "${value}")`;
  },
  mode: (out, value) => {
    if (value !== 'enforce' && value !== 'testing' && value !== 'none')
      return `mode: must be enforce, testing or none (found "${value}")`;
    out.mode = value;
    return null;
  },
  max_age: (out, value) => {
    if (!/^\d{1,10}$/.test(value) || Number(value) > MAX_MAX_AGE)
      return `max_age: must be an integer 0-${MAX_MAX_AGE} (found "${value}")`;
    out.max_age = Number(value);
    return null;
  },
  mx: (out, value) => {
    if (!MX_PATTERN.test(value)) return `mx: "${value}" is not a host name or *.host name pattern`;
    out.mx.push(value.toLowerCase());
    return null;
  },
};

function readField(out: ParsedPolicy, line: string, number: number, seen: Set<string>): void {
  const m = /^([A-Za-z0-9_.-]{1,32}):[ \t]*(.*?)[ \t]*$/.exec(line);
  if (!m) {
    out.errors.push(`line ${number} is not "key: value"`);
    return;
  }
  const [, key = '', value = ''] = m;
  const rule = POLICY_FIELDS[key];
  if (!rule) {
    out.warnings.push(`unknown field "${key}" ignored`);
  } else if (key !== 'mx' && seen.has(key)) {
    out.warnings.push(`${key}: appears more than once; the first is used`);
  } else {
    const problem = rule(out, value);
    if (problem) out.errors.push(problem);
  }
  seen.add(key);
}

/** RFC 8461 §3.2: `key: value` lines (CRLF, LF tolerated); version, mode and max_age required, mx unless mode none. */
export function parsePolicy(text: string): ParsedPolicy {
  const out: ParsedPolicy = { version: null, mode: null, mx: [], max_age: null, errors: [], warnings: [] };
  const seen = new Set<string>();
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    if (line.trim() !== '') readField(out, line, i + 1, seen);
  });
  for (const key of ['version', 'mode', 'max_age']) {
    if (!seen.has(key)) out.errors.push(`the policy has no ${key}: field`);
  }
  if (out.mode !== 'none' && out.mx.length === 0 && !out.errors.some((e) => e.startsWith('mx:')))
    out.errors.push('the policy has no mx: field (required unless mode is none)');
  return out;
}

/** RFC 8461 §4.1: an exact name, or `*.` matching exactly one leftmost label. */
export function mxMatches(host: string, pattern: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  const p = pattern.toLowerCase();
  if (!p.startsWith('*.')) return h === p;
  const suffix = p.slice(1);
  if (!h.endsWith(suffix)) return false;
  const label = h.slice(0, -suffix.length);
  return label.length > 0 && !label.includes('.');
}
