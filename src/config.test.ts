import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig, SETTINGS, settingsTable } from './config.ts';
import { parseDotEnv } from './core/dotenv.ts';

describe('config', () => {
  it('defaults match the contract', () => {
    const c = loadConfig({}, {});
    expect(c.listen).toBe('127.0.0.1:8080');
    expect(c.dataDir).toBe('./data');
    expect(c.dnsblZone).toBe('bl.netrep.test');
    expect(c.dnsblListen).toBe('127.0.0.1:5353');
    expect(c.trustedProxies).toEqual([]);
  });

  it('reads lists and booleans, rejects bad booleans', () => {
    const c = loadConfig({}, { NETREP_TRUSTED_PROXIES: '10.0.0.0/8, 192.168.0.0/16', NETREP_WORKERS: 'no' });
    expect(c.trustedProxies).toEqual(['10.0.0.0/8', '192.168.0.0/16']);
    expect(c.workers).toBe(false);
    expect(() => loadConfig({}, { NETREP_WORKERS: 'maybe' })).toThrow(/NETREP_WORKERS/);
  });

  it('parses .env files', () => {
    expect(parseDotEnv('# c\nA=1\nexport B="two words"\n\nC=\'x=y\'\nbad line\n')).toEqual({
      A: '1',
      B: 'two words',
      C: 'x=y',
    });
  });

  it('docs/configuration.md documents every setting with the generated table', () => {
    // A setting missing from the reference, or a row whose default or meaning went stale, fails
    // here; `npx netrep config --defaults` prints the table to paste.
    const reference = fs.readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');
    expect(reference).toContain(settingsTable());
    for (const s of Object.values(SETTINGS)) expect(reference).toContain(`| \`${s.env}\` |`);
  });
});
