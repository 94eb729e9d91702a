/**
 * The document generates a usable typed client: openapi-typescript (a maintained generator, kept
 * in the tools/openapi-client workspace) turns /openapi.json into types, and the TypeScript
 * compiler accepts a small program calling the IP lookups with them, and rejects one that
 * misreads them (so the types are not `any`).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { generateTypes } from '@netrep/openapi-client/generate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

const PROGRAM = `import type { components, paths } from './api.ts';

type Lookup = paths['/v1/ip/{ip}']['get'];
type LookupAnswer = Lookup['responses'][200]['content']['application/json'];
type PublicAnswer = paths['/v1/public/ip/{ip}']['get']['responses'][200]['content']['application/json'];
type LookupError = Lookup['responses'][404]['content']['application/json'];

async function getJson<T>(url: string, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(url, { headers });
  return (await res.json()) as T;
}

export async function describeIp(base: string, key: string, ip: Lookup['parameters']['path']['ip']) {
  const keyed = await getJson<LookupAnswer>(\`\${base}/v1/ip/\${ip}\`, { 'X-API-Key': key });
  const cloud: string | undefined = keyed.data.netrep.cloud_provider;
  const score: number = keyed.data.threat.score;
  const version: number | undefined = keyed.meta.dataset_version;
  const extended = await getJson<PublicAnswer>(\`\${base}/v1/public/ip/\${ip}\`);
  const provenance = extended.data.provenance;
  const sources = provenance === undefined ? [] : Object.keys(provenance);
  return { cloud, score, version, sources };
}

export function explain(error: LookupError): string {
  const code: components['schemas']['ErrorCode'] = error.data.code;
  return \`\${code}: \${error.data.error}\`;
}
`;

/** Each line misuses the generated types: every one must be a compile error. */
const MISUSES = [
  "const a: paths['/v1/ip/{ip}']['get']['responses'][200]['content']['application/json'] = null!; const n: number = a.data.netrep.cloud_provider;",
  "const code: components['schemas']['ErrorCode'] = 'NOT_A_CODE';",
  "type NoSuchRoute = paths['/v1/ip/{address}'];",
  "const b: paths['/v1/public/ip/{ip}']['get']['responses'][200]['content']['application/json'] = null!; b.data.no_such_field;",
];

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noEmit: true,
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023', 'DOM'],
    types: [],
    allowImportingTsExtensions: true,
    skipLibCheck: false,
  },
};

let t: TestApp;
let dir: string;

beforeAll(async () => {
  t = await createTestApp('sqlite');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netrep-client-'));
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function typecheck(files: Record<string, string>): Promise<{ ok: boolean; output: string }> {
  const project = fs.mkdtempSync(path.join(dir, 'p-'));
  fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(project, name), text);
  try {
    await promisify(execFile)(process.execPath, [TSC, '-p', project], { timeout: 120_000 });
    return { ok: true, output: '' };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('typed client from /openapi.json', () => {
  it('openapi-typescript generates types a program calling the IP lookups compiles against', async () => {
    const doc = (await t.app.http.inject({ method: 'GET', url: '/openapi.json' })).json() as object;
    const types = await generateTypes(doc);
    expect(types).toContain('"/v1/ip/{ip}"');
    expect(types).toContain('lookupIpPublic');

    const good = await typecheck({ 'api.ts': types, 'program.ts': PROGRAM });
    expect(good.output).toBe('');
    expect(good.ok).toBe(true);

    const header = "import type { components, paths } from './api.ts';\n";
    for (const misuse of MISUSES) {
      const bad = await typecheck({ 'api.ts': types, 'misuse.ts': `${header}${misuse}\nexport {};\n` });
      expect(bad.ok, misuse).toBe(false);
      expect(bad.output, misuse).toMatch(/error TS\d+/);
    }
  }, 180_000);
});
