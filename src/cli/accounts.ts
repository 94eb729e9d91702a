/** `netrep users create|list|unlock`, `netrep keys create|list|revoke` (CONTRACT §0b). */
import type { Command } from 'commander';
import {
  type ApiKeyInfo,
  FEATURES,
  type Feature,
  MIN_PASSWORD_LENGTH,
  PERMISSIONS,
  type Permission,
  TIER_NAMES,
  type TierName,
  type User,
} from '../accounts/index.ts';
import { isAppError } from '../core/errors.ts';
import { fail, withContext } from './context.ts';
import { ownerOf } from './owner.ts';
import { formatTable } from './table.ts';

function list(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

const KEYS_HEAD = [
  'ID',
  'NAME',
  'PREFIX',
  'TIER',
  'PERMISSIONS',
  'FEATURES',
  'OWNER',
  'CREATED',
  'LAST USED',
  'STATUS',
];

/** Seconds are enough on a terminal: 2026-11-24T20:30:00Z. */
function shortTime(iso: string): string {
  return iso.replace(/\.\d+Z$/, 'Z');
}

/** `keys list`: a header row, then one aligned row per key (the prefix is for recognising it). */
export function keysTable(rows: readonly ApiKeyInfo[]): string {
  if (rows.length === 0) return 'no API keys (create one with netrep keys create)\n';
  return formatTable([
    KEYS_HEAD,
    ...rows.map((k) => [
      String(k.id),
      k.name,
      `${k.prefix}…`,
      k.tier,
      k.permissions.join(',') || '-',
      k.features.join(',') || '-',
      k.owner_email,
      shortTime(k.created_at),
      k.last_used_at ? shortTime(k.last_used_at) : '-',
      k.revoked_at ? `revoked ${shortTime(k.revoked_at)}` : 'active',
    ]),
  ]);
}

/**
 * `users list`: one row per user with its sign-in state: `locked until …` while the per-account
 * limit holds (lift it with `users unlock`), else the failed sign-ins of the current window.
 */
export function usersTable(rows: readonly User[]): string {
  if (rows.length === 0) return 'no users (create one with netrep users create)\n';
  return formatTable([
    ['ID', 'EMAIL', 'ROLE', 'CREATED', 'SIGN-IN'],
    ...rows.map((u) => [
      String(u.id),
      u.email,
      u.role,
      shortTime(new Date(u.createdAt).toISOString()),
      u.lockedUntil !== null
        ? `locked until ${shortTime(new Date(u.lockedUntil).toISOString())}`
        : u.failedSignIns > 0
          ? `${u.failedSignIns} failed`
          : u.mustChangePassword
            ? 'must change password'
            : 'ok',
    ]),
  ]);
}

interface CreateKeyOptions {
  name: string;
  tier: string;
  permissions: string;
  owner?: string;
  feature: string[];
}

/** `keys create`: checks tier, permissions and features, then prints the key alone on stdout. */
async function createKey(opts: CreateKeyOptions): Promise<void> {
  if (!TIER_NAMES.includes(opts.tier as TierName)) fail(`--tier must be one of ${TIER_NAMES.join(', ')}`);
  const permissions = list(opts.permissions);
  for (const p of permissions) if (!PERMISSIONS.includes(p as Permission)) fail(`unknown permission ${p}`);
  for (const f of opts.feature) if (!FEATURES.includes(f as Feature)) fail(`unknown feature ${f}`);
  await withContext(async ({ accounts }) => {
    const { key, info } = await accounts.createKey({
      ownerId: await ownerOf(accounts, opts.owner),
      name: opts.name,
      tier: opts.tier as TierName,
      permissions: permissions as Permission[],
      features: opts.feature as Feature[],
    });
    process.stderr.write(
      `created key ${info.id} "${info.name}" (${info.tier}; ${info.permissions.join(', ')}${info.features.length ? `; features ${info.features.join(', ')}` : ''}) for ${info.owner_email}\n`,
    );
    process.stdout.write(`${key}\n`);
  });
}

/** `netrep users create|list|unlock`. */
function registerUserCommands(program: Command): void {
  const users = program.command('users').description('manage dashboard users');
  users
    .command('create')
    .description('create a user (prints a generated password when none is given)')
    .requiredOption('--email <email>', 'login email')
    .requiredOption('--role <role>', 'admin or member')
    .option(
      '--password <password>',
      `password (at least ${MIN_PASSWORD_LENGTH} characters, not a common password)`,
    )
    .action(async (opts: { email: string; role: string; password?: string }) => {
      if (opts.role !== 'admin' && opts.role !== 'member') fail('--role must be admin or member');
      await withContext(async ({ accounts }) => {
        try {
          const { user, password } = await accounts.createUser({
            email: opts.email,
            role: opts.role as 'admin' | 'member',
            ...(opts.password ? { password: opts.password } : {}),
          });
          process.stdout.write(`created ${user.role} ${user.email} (id ${user.id})\n`);
          if (!opts.password) process.stdout.write(`password (shown once): ${password}\n`);
        } catch (err) {
          if (isAppError(err)) fail(err.message);
          throw err;
        }
      });
    });

  users
    .command('list')
    .description('list users with their sign-in state (locked accounts say until when)')
    .action(async () => {
      await withContext(async ({ accounts }) => {
        process.stdout.write(usersTable(await accounts.listUsers()));
      });
    });

  users
    .command('unlock')
    .description('lift the sign-in lock of an account after too many failed sign-ins')
    .requiredOption('--email <email>', 'login email')
    .action(async (opts: { email: string }) => {
      await withContext(async ({ accounts }) => {
        if (!(await accounts.unlockUser(opts.email))) fail(`no user ${opts.email}`);
        process.stdout.write(`unlocked ${opts.email.trim().toLowerCase()}\n`);
      });
    });
}

/** `netrep keys create|list|revoke`. */
function registerKeyCommands(program: Command): void {
  const keys = program.command('keys').description('manage API keys');
  keys
    .command('create')
    .description('create an API key; the key is printed alone on the last line, once')
    .requiredOption('--name <name>', 'a name to recognise the key by')
    .option('--tier <tier>', `one of ${TIER_NAMES.join(', ')}`, 'free')
    .option(
      '--permissions <list>',
      `comma-separated: ${PERMISSIONS.join(', ')}`,
      'ip:read,asn:read,blocklist:read,email:read,feeds:read',
    )
    .option('--owner <email>', 'owning user (default: the first administrator)')
    .option(
      '--feature <feature>',
      `administrator feature: ${FEATURES.join(', ')}`,
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    )
    .action(createKey);

  keys
    .command('list')
    .description('list keys (the secrets are never stored; the prefix helps recognise them)')
    .option('--all', 'include revoked keys')
    .option('--json', 'print JSON')
    .action(async (opts: { all?: boolean; json?: boolean }) => {
      await withContext(async ({ accounts }) => {
        const rows = await accounts.listKeys({ includeRevoked: Boolean(opts.all) });
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
          return;
        }
        process.stdout.write(keysTable(rows));
      });
    });

  keys
    .command('revoke')
    .description('revoke a key immediately and irreversibly')
    .argument('<id>', 'key id (see netrep keys list)')
    .action(async (id: string) => {
      if (!/^\d+$/.test(id)) fail('the key id is a number (see netrep keys list)');
      await withContext(async ({ accounts }) => {
        const done = await accounts.revokeKey(Number(id));
        if (!done) fail(`no active key ${id}`);
        process.stdout.write(`revoked key ${id}\n`);
      });
    });
}

export function registerAccountCommands(program: Command): void {
  registerUserCommands(program);
  registerKeyCommands(program);
}
