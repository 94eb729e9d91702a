/**
 * Which real backends this machine offers to the tests. PostgreSQL and Redis suites use
 * `describe.skipIf(!backends.postgres)` and print why when they skip.
 */
import net from 'node:net';

export const TEST_POSTGRES_URL =
  process.env.NETREP_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.NETREP_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface Backends {
  postgres: boolean;
  postgresUrl: string;
  postgresReason: string;
  redis: boolean;
  redisUrl: string;
  redisReason: string;
}

async function canConnect(url: string, defaultPort: number): Promise<string | null> {
  const u = new URL(url);
  const port = Number(u.port || defaultPort);
  return await new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname, port, timeout: 1000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(null);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('connection timed out');
    });
    socket.once('error', (err) => resolve(err.message));
  });
}

async function postgresAnswers(url: string): Promise<string | null> {
  const reason = await canConnect(url, 5432);
  if (reason) return reason;
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (err) {
    return (err as Error).message;
  } finally {
    await client.end().catch(() => undefined);
  }
}

let cached: Promise<Backends> | undefined;

export function probeBackends(): Promise<Backends> {
  cached ??= (async () => {
    const [pgReason, redisReason] = await Promise.all([
      postgresAnswers(TEST_POSTGRES_URL),
      canConnect(TEST_REDIS_URL, 6379),
    ]);
    return {
      postgres: pgReason === null,
      postgresUrl: TEST_POSTGRES_URL,
      postgresReason: pgReason ?? '',
      redis: redisReason === null,
      redisUrl: TEST_REDIS_URL,
      redisReason: redisReason ?? '',
    };
  })();
  return cached;
}
