/**
 * `netrep scan IP` through the real binary (issue #34 item 4): the fields and how each port ended
 * (answered, refused, not HTTP), as text and --json, against servers on 127.0.0.1 with the
 * test-only loopback setting; without it the address is refused, exit 1, and nothing connects;
 * with NETREP_SCAN off nothing is scanned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNetrepAsync } from '../../test/helpers/process.ts';
import {
  ALL_BUT_LOOPBACK,
  closedPort,
  respond,
  type ScriptedServer,
  scriptedServer,
} from '../../test/helpers/scan-servers.ts';
import { tempDir } from '../../test/helpers/stores.ts';

describe('netrep scan', () => {
  let web: ScriptedServer;
  let ssh: ScriptedServer;
  let closed: number;
  let env: Record<string, string>;

  beforeAll(async () => {
    web = await scriptedServer({
      onRequest: (socket) =>
        respond(socket, '200 OK', { Server: 'CliTest/1' }, '<title>Operator &lt;view&gt;</title>'),
    });
    ssh = await scriptedServer({ onConnect: (socket) => socket.write('SSH-2.0-OpenSSH_9.6\r\n') });
    closed = await closedPort();
    env = {
      NETREP_DATA_DIR: tempDir(),
      NETREP_SCAN: 'on',
      NETREP_SCAN_ALLOW_LOOPBACK: 'true',
      NETREP_SCAN_EXCLUDE: ALL_BUT_LOOPBACK.join(','), // nothing off this machine can be scanned
      NETREP_SCAN_PORTS: `${web.port}/http,${closed}/http,${ssh.port}/http`,
      NETREP_SCAN_CONTACT: 'https://ops.example.test/scan',
      NETREP_SCAN_DEADLINE_MS: '5000',
    };
  });
  afterAll(async () => {
    await web?.close();
    await ssh?.close();
  });

  it('prints the fields and each port: answered, refused, not HTTP', async () => {
    const r = await runNetrepAsync(['scan', '127.0.0.1'], env, 60_000);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^127\.0\.0\.1: done\n/);
    expect(r.stdout).toContain('service_title     Operator <view>\n');
    expect(r.stdout).toContain('service_server    CliTest/1\n');
    expect(r.stdout).toContain('tls_organization  -\n');
    expect(r.stdout).toMatch(new RegExp(`${web.port}/http +answered +HTTP 200`));
    expect(r.stdout).toMatch(new RegExp(`${closed}/http +connect_refused +ECONNREFUSED`));
    expect(r.stdout).toMatch(new RegExp(`${ssh.port}/http +not_http +not HTTP`));
    expect(web.received[0]).toContain('User-Agent: netrep-scan/0.1.0 (+https://ops.example.test/scan)\r\n');
  });

  it('--json prints the report', async () => {
    const r = await runNetrepAsync(['scan', '127.0.0.1', '--json'], env, 60_000);
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as { service_server: string; ports: { outcome: string }[] };
    expect(report.service_server).toBe('CliTest/1');
    expect(report.ports.map((p) => p.outcome)).toEqual(['answered', 'connect_refused', 'not_http']);
  });

  it('refuses loopback without the test setting, and a bad address, before any connection', async () => {
    const before = web.connections + ssh.connections;
    const r = await runNetrepAsync(
      ['scan', '127.0.0.1', '--json'],
      { ...env, NETREP_SCAN_ALLOW_LOOPBACK: 'false' },
      60_000,
    );
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ ip: '127.0.0.1', refused: '127.0.0.1 is loopback address space' });
    expect(r.stderr).toBe('netrep: not scanned: 127.0.0.1 is loopback address space\n');
    const bad = await runNetrepAsync(['scan', '300.1.1.1'], env, 60_000);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/invalid IP address/);
    const off = await runNetrepAsync(['scan', '127.0.0.1'], { ...env, NETREP_SCAN: 'off' }, 60_000);
    expect(off.status).toBe(1);
    expect(off.stderr).toBe(
      'netrep: NETREP_SCAN is off, so nothing is scanned; to try the settings: NETREP_SCAN=on netrep scan IP\n',
    );
    expect(web.connections + ssh.connections).toBe(before);
  });
});
