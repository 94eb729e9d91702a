/**
 * What `netrep serve` prints (issue 19: pino JSON lines mixed with human text on a terminal):
 * the formatter in process, then the real binary with its output piped (every line JSON) and on
 * a pseudo-terminal through util-linux `script` (no JSON line; the banner names the dashboard).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, type NetrepProcess, startNetrep } from '../../test/helpers/process.ts';
import { systemClock } from '../core/clock.ts';
import { buildDataset } from '../dataset/index.ts';
import {
  type BannerLogger,
  createPrettyStream,
  loggerOptions,
  prettyLine,
  printBanner,
} from './log-output.ts';

const npmFixture = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../dataset/fixtures/npm-a');
const SCRIPT = '/usr/bin/script';

describe('pretty log lines', () => {
  it('turns a pino request record into one readable line', () => {
    const line = prettyLine(
      JSON.stringify({
        level: 30,
        time: Date.UTC(2026, 10, 24, 20, 31, 2),
        pid: 1,
        hostname: 'h',
        reqId: 'req-7',
        res: { statusCode: 404 },
        responseTime: 1.234,
        msg: 'request completed',
      }),
    );
    expect(line).toBe('20:31:02 INFO  [req-7] → 404 1.2 ms request completed\n');
  });

  it('keeps extra fields as key=value and puts an error stack below', () => {
    const line = prettyLine(
      JSON.stringify({
        level: 50,
        time: 0,
        msg: 'feed build failed',
        feed: 'tor exits',
        count: 3,
        err: { message: 'boom', stack: 'Error: boom\n    at x' },
      }),
    );
    expect(line).toBe('00:00:00 ERROR feed build failed feed="tor exits" count=3\nError: boom\n    at x\n');
  });

  it('passes a line that is not JSON through unchanged', () => {
    expect(prettyLine('plain words')).toBe('plain words\n');
  });

  it('loggerOptions: a stream only when pretty; the stream splits chunks into records', () => {
    expect(loggerOptions('warn', false)).toEqual({ level: 'warn' });
    let out = '';
    const opts = loggerOptions('info', true, {
      write: (s) => {
        out += s;
      },
    });
    expect(opts.level).toBe('info');
    opts.stream?.write('{"level":40,"time":0,"msg":"a"}\n{"level":30,"time":0,"msg":"b"}\n');
    expect(out).toBe('00:00:00 WARN  a\n00:00:00 INFO  b\n');
    out = '';
    createPrettyStream({
      write: (s) => {
        out += s;
      },
    }).write('\n');
    expect(out).toBe('');
  });

  it('printBanner: text on a terminal, info records otherwise whatever the log level', () => {
    const facts = [
      { text: 'netrep listening on http://x (dashboard: http://x/dashboard)', fields: { url: 'http://x' } },
    ];
    let out = '';
    const records: [Record<string, unknown>, string, string][] = [];
    const log: BannerLogger = {
      info: () => undefined,
      child: (_b, o) => ({
        info: (f, m) => {
          records.push([f, m, o.level]);
        },
        child: () => log,
      }),
    };
    printBanner(facts, {
      pretty: true,
      log,
      out: {
        write: (s) => {
          out += s;
        },
      },
    });
    expect(out).toBe('netrep listening on http://x (dashboard: http://x/dashboard)\n');
    expect(records).toEqual([]);
    printBanner(facts, {
      pretty: false,
      log,
      out: {
        write: (s) => {
          out += s;
        },
      },
    });
    expect(records).toEqual([[{ url: 'http://x' }, facts[0]?.text, 'info']]);
  });
});

describe('netrep serve output', () => {
  let dir: string;
  let server: NetrepProcess | null = null;
  const env = (sub: string) => ({
    NETREP_DATA_DIR: path.join(dir, sub),
    NETREP_LISTEN: '127.0.0.1:0',
    NETREP_DNSBL_LISTEN: '',
    NETREP_DNS_SERVERS: '127.0.0.1:9',
    NETREP_DATASET_UPDATE: 'off',
    NETREP_WORKERS: 'false',
    NETREP_LOG_LEVEL: 'info',
  });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'netrep-serve-output-'));
    for (const sub of ['piped', 'tty'])
      await buildDataset({ dataDir: path.join(dir, sub), npmDir: npmFixture, clock: systemClock });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('piped: every line is a JSON record, the banner included, with the dashboard URL', async () => {
    server = await startNetrep(env('piped'), 60_000);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    await server.stop();
    const lines = server.output().trimEnd().split('\n');
    const records = lines.map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON line: ${l}`);
      }
    });
    const listening = records.find((r) => String(r.msg).startsWith('netrep listening on'));
    expect(listening).toMatchObject({ level: 30, url: server.url, dashboard: `${server.url}/dashboard` });
    expect(records.find((r) => r.one_time_password)).toMatchObject({ admin: 'admin@localhost' });
    // pino's own records (Fastify's, the dataset load) are among them, in the same form.
    expect(records.some((r) => String(r.msg).startsWith('Server listening at'))).toBe(true);
    expect(records.find((r) => String(r.msg).includes('shutting down'))).toMatchObject({ level: 30 });
  }, 90_000);

  it.skipIf(!existsSync(SCRIPT))(
    'on a terminal: human lines only, the banner names the dashboard and the docs',
    async () => {
      const typescript = path.join(dir, 'tty.log');
      const child = spawn(SCRIPT, ['-qfec', `"${process.execPath}" "${BIN}" serve`, typescript], {
        env: { ...process.env, ...env('tty') },
        cwd: path.join(dir, 'tty'),
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      const read = () => (existsSync(typescript) ? readFileSync(typescript, 'utf8').replace(/\r/g, '') : '');
      const started = Date.now();
      let url = '';
      while (!url && Date.now() - started < 60_000) {
        await new Promise((r) => setTimeout(r, 200));
        url = /listening on (http:\/\/[^\s"]+)/.exec(read())?.[1] ?? '';
      }
      expect(url, read()).not.toBe('');
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 200));
      const text = read();
      child.kill('SIGTERM');
      spawnSync('sleep', ['0.2']);
      const lines = text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('Script '));
      expect(
        lines.filter((l) => l.trimStart().startsWith('{')),
        text,
      ).toEqual([]);
      expect(text).toContain(`netrep listening on ${url} (dashboard: ${url}/dashboard, docs: ${url}/docs)`);
      expect(text).toMatch(/^\d\d:\d\d:\d\d INFO +Server listening at http/m);
      expect(text).toMatch(/One-time password \(shown only now\): \S+/);
    },
    90_000,
  );
});
