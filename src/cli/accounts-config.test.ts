/**
 * `netrep keys list` and `netrep config` (issue 19): the keys table has a header row and a
 * permissions column; config prints the values in effect, not the defaults. Commands that succeed
 * run in process (test/helpers/cli.ts: the same commander commands on the same SQLite file,
 * without a process start each); refusals, which exit the process, and `config`, which reads the
 * .env of its working directory, run through the real binary.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliAsBinary } from '../../test/helpers/cli.ts';
import { runNetrep } from '../../test/helpers/process.ts';
import { createAccounts, SIGN_IN_FAILURE_LIMIT } from '../accounts/index.ts';
import { settingsInEffect } from '../config.ts';
import { openStore } from '../store/index.ts';
import { registerAccountCommands } from './accounts.ts';

let dir: string;
let env: Record<string, string>;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'netrep-cli-accounts-'));
  env = { NETREP_DATA_DIR: dir, NETREP_DATABASE_URL: '' };
  // The in-process commands read the same settings from process.env (test/helpers/file-setup.ts
  // puts the environment back after the file).
  Object.assign(process.env, env);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** `netrep keys|users …` in process, answering as runNetrep does. */
function run(args: string[]) {
  return runCliAsBinary([registerAccountCommands], args);
}

/** Splits an aligned table into cells (two or more spaces separate columns). */
function cells(table: string): string[][] {
  return table
    .trimEnd()
    .split('\n')
    .map((l) => l.split(/ {2,}/));
}

describe('netrep keys list', () => {
  it('prints a header row, then one row per key with its permissions and status', async () => {
    expect((await run(['keys', 'list'])).stdout).toMatch(/no API keys/);
    const user = await run(['users', 'create', '--email', 'ops@example.test', '--role', 'admin']);
    expect(user.status).toBe(0);
    const made = await run(['keys', 'create', '--name', 'ci reader', '--permissions', 'ip:read,asn:read']);
    expect(made.status).toBe(0);
    const other = await run(['keys', 'create', '--name', 'gone', '--permissions', 'blocklist:read']);
    const goneId = /created key (\d+)/.exec(other.stderr)?.[1] ?? '';
    expect((await run(['keys', 'revoke', goneId])).status).toBe(0);

    const active = await run(['keys', 'list']);
    expect(active.status).toBe(0);
    const rows = cells(active.stdout);
    expect(rows[0]).toEqual([
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
    ]);
    expect(rows).toHaveLength(2);
    const row = Object.fromEntries((rows[0] ?? []).map((h, i) => [h, rows[1]?.[i]]));
    expect(row).toMatchObject({
      NAME: 'ci reader',
      TIER: 'free',
      PERMISSIONS: 'asn:read,ip:read',
      FEATURES: '-',
      OWNER: 'ops@example.test',
      'LAST USED': '-',
      STATUS: 'active',
    });
    expect(row['PREFIX']).toBe(`${made.stdout.trim().slice(0, 8)}…`);
    expect(row['CREATED']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const all = cells((await run(['keys', 'list', '--all'])).stdout);
    expect(all).toHaveLength(3);
    expect(all.find((r) => r[1] === 'gone')?.at(-1)).toMatch(/^revoked \d{4}-/);
  });
});

describe('netrep users', () => {
  it('refuses a weak --password with the reason; users list shows a locked account until unlocked', async () => {
    const weak = runNetrep(
      ['users', 'create', '--email', 'weak@example.test', '--role', 'member', '--password', 'password'],
      env,
    );
    expect(weak.status).not.toBe(0);
    expect(weak.stderr).toContain('password must have at least 12 characters');
    const common = runNetrep(
      ['users', 'create', '--email', 'weak@example.test', '--role', 'member', '--password', 'Qwerty123456!'],
      env,
    );
    expect(common.status).not.toBe(0);
    expect(common.stderr).toContain('password is on a list of common passwords');
    const made = await run([
      'users',
      'create',
      '--email',
      'Locked@example.test',
      '--role',
      'member',
      '--password',
      'a-long-chosen-passphrase',
    ]);
    expect(made.status).toBe(0);

    // Ten failed sign-ins, as the dashboard makes them, in the same SQLite file.
    const store = openStore({ databaseUrl: '', dataDir: dir });
    try {
      const accounts = createAccounts({ store, clock: () => Date.now() });
      for (let i = 0; i < SIGN_IN_FAILURE_LIMIT; i++)
        await accounts.signIn('locked@example.test', `wrong-guess-${i}`);
    } finally {
      await store.close();
    }
    const rowOf = (stdout: string) => {
      const rows = cells(stdout);
      expect(rows[0]).toEqual(['ID', 'EMAIL', 'ROLE', 'CREATED', 'SIGN-IN']);
      return rows.find((r) => r[1] === 'locked@example.test');
    };
    const locked = await run(['users', 'list']);
    expect(locked.status).toBe(0);
    expect(rowOf(locked.stdout)?.[4]).toMatch(/^locked until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(cells(locked.stdout).find((r) => r[1] === 'weak@example.test')).toBeUndefined();

    expect((await run(['users', 'unlock', '--email', 'locked@example.test'])).stdout).toContain(
      'unlocked locked@example.test',
    );
    expect(rowOf((await run(['users', 'list'])).stdout)?.[4]).toBe('ok');
    expect(runNetrep(['users', 'unlock', '--email', 'nobody@example.test'], env).status).not.toBe(0);
  }, 120_000);
});

describe('netrep config', () => {
  it('prints the values in effect: environment over .env over default, secrets hidden', () => {
    writeFileSync(
      path.join(dir, '.env'),
      'NETREP_DNSBL_ZONE=bl.from-dotenv.test\nNETREP_LISTEN=10.0.0.1:1\n',
    );
    const r = runNetrep(['config'], {
      ...env,
      NETREP_LISTEN: '0.0.0.0:9090',
      NETREP_TRUSTED_PROXIES: '10.0.0.0/8, 192.168.0.0/16',
      NETREP_ADMIN_PASSWORD: 'hunter2-secret',
      NETREP_REDIS_URL: 'redis://:redispass@127.0.0.1:6379',
    });
    expect(r.status).toBe(0);
    const rows = Object.fromEntries(cells(r.stdout).map((c) => [c[0], { value: c[1], source: c[2] }]));
    expect(rows['VARIABLE']).toEqual({ value: 'VALUE', source: 'SOURCE' });
    expect(rows['NETREP_LISTEN']).toEqual({ value: '0.0.0.0:9090', source: 'environment' });
    expect(rows['NETREP_DNSBL_ZONE']).toEqual({ value: 'bl.from-dotenv.test', source: '.env' });
    expect(rows['NETREP_DNSBL_LISTEN']).toEqual({ value: '127.0.0.1:5353', source: 'default' });
    expect(rows['NETREP_TRUSTED_PROXIES']).toEqual({
      value: '10.0.0.0/8,192.168.0.0/16',
      source: 'environment',
    });
    expect(rows['NETREP_DATA_DIR']).toEqual({ value: dir, source: 'environment' });
    expect(rows['NETREP_ADMIN_PASSWORD']).toEqual({ value: '(set, hidden)', source: 'environment' });
    expect(rows['NETREP_REDIS_URL']?.value).toBe('redis://:***@127.0.0.1:6379');
    expect(r.stdout).not.toContain('hunter2');
    expect(r.stdout).not.toContain('redispass');
    // --defaults keeps the README's table.
    expect(runNetrep(['config', '--defaults'], env).stdout).toMatch(/^\| Variable \| Default \| Meaning \|/);
  });

  it('settingsInEffect refuses a value the service would refuse', () => {
    expect(() => settingsInEffect({ NETREP_WORKERS: 'maybe' }, {})).toThrow(/NETREP_WORKERS/);
    expect(settingsInEffect({}, {}).every((s) => s.source === 'default')).toBe(true);
  });
});
