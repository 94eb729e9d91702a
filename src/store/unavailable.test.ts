/**
 * The driver errors that mean "store out of reach", produced by the real drivers: a refused
 * PostgreSQL port, a pool whose server went away, SQLite files that cannot be opened or written;
 * and the errors that are bugs (constraint, syntax), which must stay 500s.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { TEST_POSTGRES_URL } from '../../test/helpers/backends.ts';
import { skipStore, tempDir } from '../../test/helpers/stores.ts';
import { isStoreUnavailable } from './unavailable.ts';

async function caught(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

/** A loopback port with nothing listening. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('isStoreUnavailable: SQLite', () => {
  it('a file that cannot be opened, a read-only database, a busy lock: unavailable', async () => {
    const dir = tempDir();
    try {
      // A directory where the database file should be.
      const cantOpen = await caught(() => new SqliteDatabase(dir).prepare('select 1').get());
      expect((cantOpen as { code?: string }).code).toMatch(/^SQLITE_CANTOPEN/);
      expect(isStoreUnavailable(cantOpen)).toBe(true);

      const file = path.join(dir, 'a.sqlite');
      const rw = new SqliteDatabase(file);
      rw.exec('create table t (a integer primary key)');
      const ro = new SqliteDatabase(file, { readonly: true });
      const readOnly = await caught(() => ro.prepare('insert into t values (1)').run());
      expect((readOnly as { code?: string }).code).toMatch(/^SQLITE_READONLY/);
      expect(isStoreUnavailable(readOnly)).toBe(true);
      ro.close();

      const other = new SqliteDatabase(file, { timeout: 0 });
      rw.exec('begin exclusive');
      const busy = await caught(() => other.prepare('insert into t values (2)').run());
      expect((busy as { code?: string }).code).toMatch(/^SQLITE_BUSY/);
      expect(isStoreUnavailable(busy)).toBe(true);
      rw.exec('rollback');

      // Bugs stay bugs: a constraint violation, a syntax error.
      rw.prepare('insert into t values (1)').run();
      expect(isStoreUnavailable(await caught(() => rw.prepare('insert into t values (1)').run()))).toBe(
        false,
      );
      expect(isStoreUnavailable(await caught(() => rw.prepare('selec 1')))).toBe(false);

      // A closed handle (the store was closed under a request).
      rw.close();
      expect(isStoreUnavailable(await caught(() => rw.prepare('select 1').get()))).toBe(true);
      other.close();
      fs.writeFileSync(path.join(dir, 'not-a-db.sqlite'), 'x'.repeat(4096));
      const junk = new SqliteDatabase(path.join(dir, 'not-a-db.sqlite'));
      const notADb = await caught(() => junk.prepare('select * from sqlite_master').all());
      expect((notADb as { code?: string }).code).toBe('SQLITE_NOTADB');
      expect(isStoreUnavailable(notADb)).toBe(true);
      junk.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('isStoreUnavailable: PostgreSQL', () => {
  it('a refused port and a connect timeout: unavailable', async () => {
    const port = await closedPort();
    const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${port}/test` });
    const refused = await caught(() => pool.query('select 1'));
    expect((refused as { code?: string }).code).toBe('ECONNREFUSED');
    expect(isStoreUnavailable(refused)).toBe(true);
    await pool.end();

    // A server that accepts and never answers.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const silentPort = (silent.address() as net.AddressInfo).port;
    const slow = new pg.Pool({
      connectionString: `postgres://postgres@127.0.0.1:${silentPort}/test`,
      connectionTimeoutMillis: 200,
    });
    const timedOut = await caught(() => slow.query('select 1'));
    expect(isStoreUnavailable(timedOut)).toBe(true);
    await slow.end();
    silent.close();
  });

  it.skipIf(skipStore('postgres'))(
    'a terminated backend: unavailable; a syntax error or a division by zero: not',
    async () => {
      const pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 2 });
      pool.on('error', () => undefined);
      try {
        const syntax = await caught(() => pool.query('selec 1'));
        expect((syntax as { code?: string }).code).toBe('42601');
        expect(isStoreUnavailable(syntax)).toBe(false);
        const divByZero = await caught(() => pool.query('select * from (values (1)) v(a) where a = 1/0'));
        expect(isStoreUnavailable(divByZero)).toBe(false);

        const victim = await pool.connect();
        victim.on('error', () => undefined);
        const pid = (await victim.query('select pg_backend_pid() as pid')).rows[0].pid as number;
        await pool.query('select pg_terminate_backend($1)', [pid]);
        const terminated = await caught(() => victim.query('select 1'));
        expect(isStoreUnavailable(terminated)).toBe(true);
        victim.release(true);
      } finally {
        await pool.end();
      }
    },
  );

  it('wrapped errors count by their cause; plain errors and non-errors do not', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(isStoreUnavailable(new Error('lookup failed', { cause: refused }))).toBe(true);
    expect(isStoreUnavailable(new AggregateError([new Error('x'), refused]))).toBe(true);
    expect(isStoreUnavailable(Object.assign(new Error('admin shutdown'), { code: '57P01' }))).toBe(true);
    expect(isStoreUnavailable(Object.assign(new Error('unique'), { code: '23505' }))).toBe(false);
    expect(isStoreUnavailable(new TypeError("Cannot read properties of undefined (reading 'trim')"))).toBe(
      false,
    );
    expect(isStoreUnavailable(null)).toBe(false);
    expect(isStoreUnavailable('ECONNREFUSED')).toBe(false);
    const loop: { cause?: unknown } = {};
    loop.cause = loop;
    expect(isStoreUnavailable(loop)).toBe(false);
  });
});
