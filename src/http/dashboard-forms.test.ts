/** The dashboard's form reading without a server: text fields kept, the first wrong one named. */
import { describe, expect, it } from 'vitest';
import { field, fieldProblem, fields, keyIdOf, readForm } from './dashboard-forms.ts';

describe('readForm', () => {
  it('keeps the known text fields and lists, and drops the unknown ones', () => {
    const { form, wrong } = readForm(
      { _csrf: 't', name: ' CI key ', tier: 'free', permissions: ['ip:read', 'asn:read'], other: 'x' },
      'createKey',
    );
    expect(wrong).toBeNull();
    expect(field(form, 'name')).toBe('CI key');
    expect(fields(form, 'permissions')).toEqual(['ip:read', 'asn:read']);
    expect(fields(form, 'tier')).toEqual(['free']);
    expect(form.other).toBeUndefined();
    expect(field(form, 'absent')).toBe('');
    expect(fields(form, 'absent')).toEqual([]);
  });

  it('names the first field that is not text, or holds a NUL', () => {
    expect(readForm({ email: 1, password: null }, 'login').wrong).toBe('The field "email" must be text.');
    expect(readForm({ email: 'a@b.test', password: ['x', 2] }, 'login').wrong).toBe(
      'The field "password" must be text.',
    );
    expect(readForm({ email: 'a\u0000@b.test' }, 'login').wrong).toBe(
      'The field "email" must not contain NUL characters.',
    );
  });

  it('refuses a body that is not an object, and reads an empty one as no fields', () => {
    expect(readForm('email=x', 'login').wrong).toMatch(/could not be read/);
    expect(readForm(['a'], 'login').wrong).toMatch(/could not be read/);
    expect(readForm(undefined, 'login')).toEqual({ form: {}, wrong: null });
  });
});

describe('fieldProblem', () => {
  it('lets text and lists of text be, and names the field of anything else or of a NUL', () => {
    expect(fieldProblem('name', 'x')).toBeNull();
    expect(fieldProblem('permissions', ['a', 'b'])).toBeNull();
    expect(fieldProblem('permissions', [])).toBeNull();
    for (const bad of [1, null, undefined, { a: 'b' }, ['a', 2]]) {
      expect(fieldProblem('name', bad)).toBe('The field "name" must be text.');
    }
    expect(fieldProblem('ip', ['1.2.3.4', 'a\u0000'])).toBe(
      'The field "ip" must not contain NUL characters.',
    );
  });
});

describe('keyIdOf', () => {
  it('reads decimal ids as the dashboard writes them, nothing else', () => {
    expect(keyIdOf('12')).toBe(12);
    for (const bad of ['0', '012', '0x10', '1e3', '-1', '1.5', '', '1234567890123456']) {
      expect(keyIdOf(bad), bad).toBeNull();
    }
  });
});
