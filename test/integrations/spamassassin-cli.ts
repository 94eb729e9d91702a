/**
 * The `spamassassin` command (Debian's perl CLI, no daemon) on a configuration of its own in a
 * temp dir: the given `.cf` files as the site config with the two plugins the DNSBL rules need
 * (Debian's /etc/spamassassin/v320.pre loads them among forty others, which take three times as
 * long to load), and of the stock rules only the defaults (report templates, required score, TLD
 * list), so no other rule sends a DNS query.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);

const PLUGINS = ['Check', 'DNSEval'].map((p) => `loadplugin Mail::SpamAssassin::Plugin::${p}\n`).join('');
const STOCK_RULES = '/usr/share/spamassassin';
const STOCK_DEFAULTS = ['10_default_prefs.cf', '20_aux_tlds.cf'];

export interface SpamAssassinResult {
  /** The rules that hit, from X-Spam-Status `tests=`. */
  tests: string[];
  /** The report's text with its line wrapping undone (rule descriptions and their logs). */
  report: string;
}

export interface SpamAssassin {
  /** Checks the messages in one run (`spamassassin -t`), results in order. */
  check(messages: string[]): Promise<SpamAssassinResult[]>;
  /** `spamassassin --lint`: its output, or throws on a non-zero exit. */
  lint(): Promise<string>;
}

export function prepareSpamAssassin(dir: string, siteFiles: Record<string, string>): SpamAssassin {
  const site = path.join(dir, 'site');
  const rules = path.join(dir, 'rules');
  const home = path.join(dir, 'home');
  for (const d of [site, rules, home]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(site, 'init.pre'), PLUGINS);
  for (const cf of STOCK_DEFAULTS) fs.copyFileSync(path.join(STOCK_RULES, cf), path.join(rules, cf));
  for (const [name, text] of Object.entries(siteFiles)) fs.writeFileSync(path.join(site, name), text);
  const args = ['-x', '-C', rules, `--siteconfigpath=${site}`, '-p', path.join(home, 'user_prefs')];
  const env = { ...process.env, HOME: home };
  let n = 0;
  return {
    async check(messages) {
      const files = messages.map((m) => {
        const file = path.join(dir, `message-${n++}.eml`);
        fs.writeFileSync(file, m);
        return file;
      });
      const { stdout } = await execFileP('spamassassin', ['-t', ...args, ...files], { env });
      const outputs = stdout.split(/^(?=X-Spam-Checker-Version:)/m).filter((s) => s.length > 0);
      if (outputs.length !== messages.length)
        throw new Error(
          `spamassassin gave ${outputs.length} results for ${messages.length} messages:\n${stdout}`,
        );
      return outputs.map((out) => {
        const status = /^X-Spam-Status:.*(?:\n[ \t].*)*/m.exec(out)?.[0] ?? '';
        // The header is folded after commas of the test list.
        const tests = /tests=(\S*)/.exec(status.replace(/,\s+/g, ','))?.[1] ?? '';
        return {
          tests: tests === 'none' || tests === '' ? [] : tests.split(','),
          report: out.replace(/\s+/g, ' '),
        };
      });
    },
    async lint() {
      const { stdout, stderr } = await execFileP('spamassassin', ['--lint', ...args], { env });
      return stdout + stderr;
    },
  };
}
