/**
 * `netrep headers analyze` on real messages from shared/data/email: every Authentication-Results
 * header with its trust, every dkim= result, the DKIM signatures and the ARC chain (issue 31),
 * and NETREP_TRUSTED_AUTHSERV_IDS read from the environment.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers/cli.ts';
import { sharedDataPath } from '../../test/helpers/shared-data.ts';
import { registerHeadersCommands } from './headers.ts';

const ARCBAD = sharedDataPath('email/messages/rspamd-arcbad.eml');
const saved = {
  dataDir: process.env['NETREP_DATA_DIR'],
  trusted: process.env['NETREP_TRUSTED_AUTHSERV_IDS'],
};
let dir: string;

const restore = (name: string, value: string | undefined) => {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
};

beforeAll(() => {
  // No snapshot here: the hops stay unenriched and nothing outside the test is read.
  dir = mkdtempSync(path.join(tmpdir(), 'netrep-cli-headers-'));
  process.env['NETREP_DATA_DIR'] = dir;
});
afterAll(() => {
  restore('NETREP_DATA_DIR', saved.dataDir);
  restore('NETREP_TRUSTED_AUTHSERV_IDS', saved.trusted);
  rmSync(dir, { recursive: true, force: true });
});

describe('netrep headers analyze: every result it was shown', () => {
  it('prints both dkim= results, the trust of each Authentication-Results and the ARC chain', async () => {
    delete process.env['NETREP_TRUSTED_AUTHSERV_IDS'];
    const r = await runCli([registerHeadersCommands], ['headers', 'analyze', '--file', ARCBAD]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      'Authentication-Results (1, top-most first; trusted: the top-most header and its authserv-id)\n' +
        '  1. mail.highsecure.ru  trusted\n' +
        '     dkim=pass header.d=freebsd.org header.s=dkim header.b=H7pb97c0\n' +
        '     dkim=fail header.d=outlook.com header.s=selector1 header.b=LWxzK+W8\n',
    );
    expect(r.out).toContain(
      'DKIM-Signature (2)\n  d=freebsd.org s=dkim a=rsa-sha256\n  d=outlook.com s=selector1 a=rsa-sha256\n',
    );
    expect(r.out).toContain(
      'ARC chain: 1 instance, last cv=none; instance i=1 has 2 ARC-Seal headers (signatures not verified)\n' +
        '  ARC-Seal i=1 cv=none d=microsoft.com s=arcselector9901\n' +
        '  ARC-Seal i=1 cv=none d=freebsd.org s=dkim\n',
    );
  });

  it('trusts the ids of NETREP_TRUSTED_AUTHSERV_IDS', async () => {
    process.env['NETREP_TRUSTED_AUTHSERV_IDS'] = 'mx1.freebsd.org';
    const r = await runCli([registerHeadersCommands], ['headers', 'analyze', '--file', ARCBAD]);
    expect(r.out).toContain('trusted: NETREP_TRUSTED_AUTHSERV_IDS)\n  1. mail.highsecure.ru  not trusted\n');
    const j = JSON.parse(
      (await runCli([registerHeadersCommands], ['headers', 'analyze', '--json', '--file', ARCBAD])).out,
    );
    expect([j.authentication.trust_source, j.authentication.authserv_id_trusted]).toEqual([
      'configured',
      false,
    ]);
  });
});

describe('netrep headers analyze --help', () => {
  it('names the route that answers the same analysis, as the route file registers it (#36 item 7)', () => {
    const program = new Command('netrep');
    registerHeadersCommands(program);
    const analyze = program.commands
      .find((c) => c.name() === 'headers')
      ?.commands.find((c) => c.name() === 'analyze');
    const help = analyze?.helpInformation() ?? '';
    const named = /POST (\/v1\/\S+) gives it/.exec(help.replace(/\s+/g, ' '))?.[1];
    expect(named).toBe('/v1/public/tools/header-analyzer');
    const routes = readFileSync(new URL('../http/routes/header-analyzer.ts', import.meta.url), 'utf8');
    expect(routes).toContain(`app.post(\n    '${named}'`);
  });
});
