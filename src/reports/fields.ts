/**
 * Field readers shared by the report formats: each takes what the parser produced (string, object,
 * undefined), returns the checked value or throws INVALID_REPORT naming the field and the value.
 */
import { AppError } from '../core/errors.ts';
import { normalizeIp } from '../core/ip.ts';

/** Longest text kept in one field; reporters' free text beyond it is cut, not refused. */
const MAX_TEXT = 1000;
/** Report periods from 1970 to 2100 (RFC 9990's own example is dated 1979): outside is a broken report. */
const EARLIEST_S = 0;
const LATEST_S = 4_102_444_800;
/**
 * The largest count accepted in one row or policy: 2^31 - 1. No source sends two billion messages
 * to one receiver in one report period; a larger number is a broken or hostile report.
 */
export const MAX_COUNT = 2_147_483_647;

export function refuse(reason: string): never {
  throw new AppError('INVALID_REPORT', reason);
}

function show(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  return JSON.stringify(typeof value === 'string' ? value.slice(0, 60) : value) ?? 'nothing';
}

/** A leaf's text: a string as parsed (an element holding only text), else null. */
export function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value.trim().slice(0, MAX_TEXT);
  if (typeof value === 'number') return String(value);
  if (value && typeof value === 'object' && '#text' in value)
    return textOf((value as { '#text': unknown })['#text']);
  return null;
}

export function requiredText(value: unknown, field: string): string {
  return textOf(value) ?? refuse(`${field} is missing`);
}

export function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  const text = textOf(value);
  if (text !== null && (allowed as readonly string[]).includes(text)) return text as T;
  return refuse(`${field}: ${show(text)} is not one of ${allowed.join(', ')}`);
}

export function optionalOneOf<T extends string>(
  value: unknown,
  field: string,
  allowed: readonly T[],
): T | null {
  return textOf(value) === null ? null : oneOf(value, field, allowed);
}

/** A whole number written in decimal, within [min, max]. */
export function integer(value: unknown, field: string, min: number, max: number): number {
  const text = textOf(value);
  if (text === null || !/^[+-]?\d{1,30}$/.test(text))
    return refuse(`${field}: ${show(text)} is not a whole number`);
  const n = Number(text);
  if (n < min || n > max) return refuse(`${field}: ${text} is outside ${min}..${max}`);
  return n;
}

export function address(value: unknown, field: string): string {
  const text = textOf(value);
  return normalizeIp(text) ?? refuse(`${field}: ${show(text)} is not an IP address`);
}

export function optionalAddress(value: unknown, field: string): string | null {
  return textOf(value) === null ? null : address(value, field);
}

/** Epoch seconds (RFC 7489 date_range) → epoch ms, within 1970..2100. */
export function epochSeconds(value: unknown, field: string): number {
  return integer(value, field, EARLIEST_S, LATEST_S) * 1000;
}

/** An RFC 3339 date-time (RFC 8460 date-range) → epoch ms, within 1970..2100. */
export function dateTime(value: unknown, field: string): number {
  const text = textOf(value);
  const ms = text !== null && /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(ms)) return refuse(`${field}: ${show(text)} is not a date-time`);
  if (ms < EARLIEST_S * 1000 || ms > LATEST_S * 1000) return refuse(`${field}: ${text} is out of range`);
  return ms;
}

/** A period whose end is before its start is refused. */
export function period(begin: number, end: number, field: string): void {
  if (end < begin) refuse(`${field}: the end is before the begin`);
}

/** A list from a value that may be one item, a list, or absent. */
export function listOf(value: unknown): unknown[] {
  if (value === undefined || value === null || value === '') return [];
  return Array.isArray(value) ? value : [value];
}

export function objectOf(value: unknown, field: string): Record<string, unknown> {
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  return refuse(`${field} is missing`);
}
