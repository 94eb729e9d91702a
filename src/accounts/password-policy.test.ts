/** New-password rules against the real common-password list of @zxcvbn-ts/language-common. */
import { describe, expect, it } from 'vitest';
import { newPasswordProblem } from './password-policy.ts';

describe('newPasswordProblem', () => {
  it.each([
    ['password', 'at least 12 characters'],
    ['short-pass1', 'at least 12 characters'],
    ['x'.repeat(201), 'at most 200 characters'],
    ['aaaaaaaaaaaa', 'at least 5 different characters'],
    ['abababab1212', 'at least 5 different characters'],
    // On the list as they are (12 characters and more).
    ['qwerty123456', 'common passwords'],
    ['1q2w3e4r5t6y', 'common passwords'],
    ['LeaveMeAlone', 'common passwords'],
    // A listed word with digits and punctuation around it.
    ['Password2026!', 'common passwords'],
    ['!!Iloveyou1234', 'common passwords'],
    ['dragon123456789', 'common passwords'],
  ])('refuses %s (%s)', async (password, why) => {
    expect(await newPasswordProblem(password)).toContain(why);
  });

  it.each(['a-long-chosen-passphrase', 'admin-password-1', 'Tr0ub4dor&3-horse', 'correct horse battery'])(
    'accepts %s',
    async (password) => {
      expect(await newPasswordProblem(password)).toBeNull();
    },
  );
});
