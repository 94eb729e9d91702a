/**
 * The dashboard's form posts (routes/dashboard.ts, routes/dashboard-audit.ts): the fields each form posts, read as text or a
 * 400 that names the field; key ids as the dashboard's links write them.
 */
import { Type } from '@sinclair/typebox';

export type Form = Record<string, string | string[] | undefined>;

/**
 * The fields each form posts. A post may come as a form (@fastify/formbody: text values, a
 * repeated field as a list) or as JSON; a field of these that is anything but text or a list of
 * text (a number, null, an object: `{"email":1}`), or text with a NUL, makes the post a 400 that
 * says which field.
 */
export const FORM_FIELDS = {
  login: ['email', 'password'],
  logout: ['_csrf'],
  createKey: ['_csrf', 'name', 'tier', 'permissions'],
  revokeKey: ['_csrf'],
  changePassword: ['_csrf', 'current', 'password', 'confirm'],
  setFeatures: ['_csrf', 'features'],
  list: ['_csrf', 'ip', 'type', 'reason', 'expires_days'],
  delist: ['_csrf', 'ip'],
  unlock: ['_csrf', 'email'],
  createAudit: ['_csrf', 'targets', 'dataset_version', 'seed', 'max_samples', 'acceptance'],
  cancelAudit: ['_csrf'],
} as const;
export type FormName = keyof typeof FORM_FIELDS;

/** A form post's known fields; `wrong` explains the first one that is not text (or why the body is unreadable). */
export function readForm(body: unknown, name: FormName): { form: Form; wrong: string | null } {
  const form: Form = Object.create(null);
  if (body === undefined || body === null || body === '') return { form, wrong: null };
  if (typeof body !== 'object' || Array.isArray(body))
    return { form, wrong: 'The form could not be read: send its fields as a form or a JSON object.' };
  const fields = body as Record<string, unknown>;
  let wrong: string | null = null;
  for (const field of FORM_FIELDS[name]) {
    if (!Object.hasOwn(fields, field)) continue;
    const value = fields[field];
    const problem = fieldProblem(field, value);
    if (problem === null) form[field] = value as string | string[];
    else wrong ??= problem;
  }
  return { form, wrong };
}

/** Why a posted field's value is refused (not text nor a list of text, or text with a NUL), else null. */
export function fieldProblem(field: string, value: unknown): string | null {
  const texts = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [null];
  if (!texts.every((v) => typeof v === 'string')) return `The field "${field}" must be text.`;
  // NUL is no character of any field, and PostgreSQL refuses it in text.
  if (texts.some((v) => v.includes('\u0000'))) return `The field "${field}" must not contain NUL characters.`;
  return null;
}

export const KeyIdParam = Type.Object({ id: Type.String({ maxLength: 20 }) });

/** A key id as the dashboard's own links write it (decimal digits), else null: `0x10` or `1e3` name no key. */
export function keyIdOf(param: string): number | null {
  return /^[1-9]\d{0,14}$/.test(param) ? Number(param) : null;
}

export function field(form: Form, name: string): string {
  const v = form[name];
  return (Array.isArray(v) ? v[0] : v)?.trim() ?? '';
}

export function fields(form: Form, name: string): string[] {
  const v = form[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}
