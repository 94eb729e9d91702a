/**
 * `netrep dnsbl export` (the real binary) over a real store: the rbldnsd file loads into real
 * rbldnsd and answers like the running netrep zone; the BIND file passes named-checkzone.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/helpers/app.ts';
import { queryUdp, type Rbldnsd, startRbldnsd, tempDir } from '../../test/helpers/dnsbl-tools.ts';
import { runNetrep } from '../../test/helpers/process.ts';
import { createTestStore, type TestStoreHandle } from '../../test/helpers/stores.ts';
import { createBlocklist } from '../blocklist/index.ts';
import { createManualClock } from '../core/clock.ts';
import { ipToQueryName } from '../dnsbl/index.ts';

const execFileP = promisify(execFile);
const ZONE = 'bl.netrep.test';
const PUBLIC_URL = 'http://127.0.0.1:8080';
const HOUR = 3_600_000;

describe('netrep dnsbl export', () => {
  const tmp = tempDir('netrep-bl-export-');
  let handle: TestStoreHandle;
  let env: Record<string, string>;
  let rbldnsd: Rbldnsd | undefined;
  let t: TestApp | undefined;
  const listed: string[] = [];

  beforeAll(async () => {
    handle = await createTestStore('sqlite');
    // Two hours ago in real time, so one listing has already expired when the CLI runs.
    const clock = createManualClock(Date.now() - 2 * HOUR);
    const blocklist = createBlocklist({ store: handle.store, clock });
    for (let i = 0; i < 300; i++) {
      const ip = `10.${i >> 8}.${i & 255}.${(i * 37) % 256}`;
      await blocklist.list({
        ip,
        type: (['spam', 'malware', 'phishing'] as const)[i % 3] ?? 'spam',
        reason: `r$${i} "q"`,
      });
      listed.push(ip);
    }
    for (let i = 1; i <= 20; i++) {
      const ip = `2001:db8:${i.toString(16)}::${i}`;
      await blocklist.list({ ip, type: 'spam', reason: `v6 ${i}`, returnCode: '127.0.0.9' });
      listed.push(ip);
    }
    await blocklist.list({ ip: '198.51.100.1', type: 'spam', reason: 'old', expiresAt: clock() + HOUR });
    await blocklist.list({ ip: '198.51.100.2', type: 'spam', reason: 'gone' });
    await blocklist.delist('198.51.100.2');
    env = {
      NETREP_DATA_DIR: handle.dataDir,
      NETREP_DATABASE_URL: '',
      NETREP_DNSBL_ZONE: ZONE,
      NETREP_PUBLIC_URL: PUBLIC_URL,
    };
  });

  afterAll(async () => {
    await rbldnsd?.stop();
    await t?.close();
    await handle.cleanup();
    tmp.remove();
  });

  it('rbldnsd serving the export answers like the netrep zone', async () => {
    const file = path.join(tmp.dir, 'zone.rbldnsd');
    const run = runNetrep(['dnsbl', 'export', '--format', 'rbldnsd', '--out', file], env);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(`exported ${listed.length} listings`);
    fs.chmodSync(file, 0o644);
    rbldnsd = await startRbldnsd(ZONE, file);

    t = await createTestApp('sqlite', {
      handle,
      clockStart: new Date().toISOString(),
      config: { dnsblListen: '127.0.0.1:0', dnsblZone: ZONE, publicUrl: PUBLIC_URL },
    });
    const port = t.app.dnsbl?.udpPort as number;
    const names = [
      ...listed,
      '198.51.100.1',
      '198.51.100.2',
      '10.0.0.1',
      '2001:db8:99::1',
      '127.0.0.2',
      '127.0.0.1',
    ].map((ip) => ipToQueryName(ip, ZONE) as string);
    const questions = names.flatMap((n) => [
      { name: n, type: 'A' as const },
      { name: n, type: 'TXT' as const },
    ]);
    const [ours, theirs] = await Promise.all([queryUdp(port, questions), queryUdp(rbldnsd.port, questions)]);
    const view = (answers: typeof ours) =>
      answers.map((x) => ({
        rcode: x.rcode,
        data: x.answers.map((r) =>
          r.type === 'TXT'
            ? Buffer.concat((r.data as Buffer[]).map((b) => Buffer.from(b))).toString()
            : r.type === 'A'
              ? r.data
              : r.type,
        ),
      }));
    expect(view(theirs)).toEqual(view(ours));
    const expired = view(ours)[2 * listed.length];
    expect(expired?.rcode).toBe('NXDOMAIN');
    expect(view(ours)[0]).toEqual({ rcode: 'NOERROR', data: ['127.0.0.2'] });
    expect(view(ours)[1]?.data[0]).toContain(`r$0 "q"; ${PUBLIC_URL}/tools/blocklist?ip=${listed[0]}`);
  });

  it('writes a BIND zone that named-checkzone accepts, and refuses an unknown format', async () => {
    const file = path.join(tmp.dir, 'zone.db');
    const run = runNetrep(['dnsbl', 'export', '--format', 'bind', '--out', file], env);
    expect(run.status, run.stderr).toBe(0);
    const { stdout } = await execFileP('named-checkzone', [ZONE, file]);
    expect(stdout).toContain('OK');
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain(
      `${ipToQueryName('2001:db8:1::1', ZONE)?.replace(`.${ZONE}`, '')}\tIN\tA\t127.0.0.9`,
    );
    expect(text).not.toContain('1.100.51.198');

    const bad = runNetrep(['dnsbl', 'export', '--format', 'djbdns'], env);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('--format must be rbldnsd or bind');
  });
});
