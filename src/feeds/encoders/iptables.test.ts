import { afterAll, describe, expect, it } from 'vitest';
import {
  collect,
  encodeToString,
  feedContext,
  realCanonicalRows,
  runTool,
  tempDir,
  writeText,
} from '../../../test/helpers/feeds-tools.ts';
import { canonicalizeRow } from '../row.ts';
import { FEED_NAMES } from '../types.ts';
import { iptablesChain, iptablesRuleSet } from './iptables.ts';

const tmp = tempDir('iptables');
afterAll(tmp.cleanup);

/** The here-document fed to (ip6)iptables-restore in the script. */
function heredoc(script: string, end: string): string {
  const start = script.indexOf(`<<'${end}'\n`);
  const stop = script.indexOf(`\n${end}\n`, start);
  if (start === -1 || stop === -1) throw new Error(`no ${end} section`);
  return script.slice(script.indexOf('\n', start) + 1, stop + 1);
}

/**
 * iptables-restore --test parses the rule set and checks it against the kernel's nf_tables
 * without committing. If the sandbox kernel refused, the exact error would surface in the assertion.
 */
function restoreTest(tool: 'iptables-restore' | 'ip6tables-restore', rules: string) {
  return runTool(tool, ['--test'], { input: rules });
}

describe('iptables encoder', () => {
  it.each(FEED_NAMES)('the real %s script passes sh -n and both restore --test runs', async (feed) => {
    const rows = await realCanonicalRows(feed);
    const script = await encodeToString('iptables', rows, feedContext(feed));
    const file = writeText(tmp.dir, `${feed}.sh`, script);
    const sh = runTool('sh', ['-n', file]);
    expect(sh.status, sh.stderr).toBe(0);

    const v4 = heredoc(script, 'NETREP_IPV4_RULES');
    const v6 = heredoc(script, 'NETREP_IPV6_RULES');
    // The script embeds exactly the exported rule sets.
    expect(v4).toBe((await collect(iptablesRuleSet(feed, 4, rows))).join(''));
    expect(v6).toBe((await collect(iptablesRuleSet(feed, 6, rows))).join(''));
    const r4 = restoreTest('iptables-restore', v4);
    expect(r4.status, r4.stderr).toBe(0);
    const r6 = restoreTest('ip6tables-restore', v6);
    expect(r6.status, r6.stderr).toBe(0);
    const ruleCount = (text: string) => text.split('\n').filter((l) => l.startsWith('-A ')).length;
    expect(ruleCount(v4) + ruleCount(v6)).toBe(rows.length);
    expect(ruleCount(v6)).toBe(rows.filter((c) => c.family === 6).length);
  });

  it('the checks are real: a bad mask fails restore --test and a broken script fails sh -n', () => {
    const chain = iptablesChain('tor_exits');
    const bad = restoreTest(
      'iptables-restore',
      `*filter\n:${chain} - [0:0]\n-A ${chain} -s 10.0.0.0/33 -j DROP\nCOMMIT\n`,
    );
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/invalid mask/);
    const v6InV4 = restoreTest(
      'iptables-restore',
      `*filter\n:${chain} - [0:0]\n-A ${chain} -s 2001:db8::/32 -j DROP\nCOMMIT\n`,
    );
    expect(v6InV4.status).not.toBe(0);
    const file = writeText(tmp.dir, 'broken.sh', '#!/bin/sh\nif true; then\n  echo x\n');
    expect(runTool('sh', ['-n', file]).status).not.toBe(0);
  });

  it('an empty feed and a v6-only feed still declare both chains', async () => {
    for (const rows of [
      [],
      [canonicalizeRow({ network: '2001:db8::1', kind: 'k', source: 's', first_seen: 'a', last_seen: 'b' })],
    ]) {
      const script = await encodeToString('iptables', rows, feedContext('vpn_proxy'));
      expect(runTool('sh', ['-n', writeText(tmp.dir, 'small.sh', script)]).status).toBe(0);
      expect(restoreTest('iptables-restore', heredoc(script, 'NETREP_IPV4_RULES')).status).toBe(0);
      expect(restoreTest('ip6tables-restore', heredoc(script, 'NETREP_IPV6_RULES')).status).toBe(0);
    }
  });

  it('names the chain within the 28-character iptables limit', () => {
    for (const feed of FEED_NAMES) expect(iptablesChain(feed).length).toBeLessThanOrEqual(28);
  });
});
