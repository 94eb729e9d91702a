/**
 * What a new password must be (checked when one is set: users create, the first administrator,
 * a password change; never at sign-in, so users whose password predates a rule still sign in):
 * 12 to 200 characters, at least 5 different characters, and not a common password. Common
 * passwords are the 49,233 of @zxcvbn-ts/language-common (`passwords-common`: the most frequent
 * passwords of public breach corpora, maintained with zxcvbn-ts), compared without case and
 * also with leading and trailing digits and punctuation taken off (`Password2026!` is
 * `password`). The list is read on the first check, not at start.
 */

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 200;
const MIN_DISTINCT = 5;

let common: Promise<ReadonlySet<string>> | null = null;

function commonPasswords(): Promise<ReadonlySet<string>> {
  common ??= import('@zxcvbn-ts/language-common').then(
    (m) => new Set(m.dictionary['passwords-common'].map((p) => p.toLowerCase())),
  );
  return common;
}

/** Why `password` may not be set as a new password, or null when it may. */
export async function newPasswordProblem(password: string): Promise<string | null> {
  if (password.length < MIN_PASSWORD_LENGTH)
    return `password must have at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH)
    return `password must have at most ${MAX_PASSWORD_LENGTH} characters`;
  if (new Set(password).size < MIN_DISTINCT)
    return `password must use at least ${MIN_DISTINCT} different characters`;
  const list = await commonPasswords();
  const lower = password.toLowerCase();
  const core = lower.replace(/^[\d\p{P}\p{S}\s]+|[\d\p{P}\p{S}\s]+$/gu, '');
  if (list.has(lower) || (core !== '' && list.has(core)))
    return 'password is on a list of common passwords; choose another';
  return null;
}
