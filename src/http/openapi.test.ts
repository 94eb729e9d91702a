/**
 * /openapi.json as a product, on the real app: every operation named, exemplified and with its
 * errors (so a new route cannot slip in without them), the examples true to the schemas, the
 * enums, headers, version and servers, and no text citing the internal contract.
 */
import fs from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/helpers/app.ts';
import { ERRORS } from '../core/errors.ts';
import { serverUrlOf } from './openapi.ts';

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = Record<string, unknown>;
interface Media {
  schema?: Json;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Operation {
  operationId?: string;
  summary?: string;
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { description?: string; headers?: Json; content?: Record<string, Media> }>;
}
interface Doc {
  info: { version: string; title: string };
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json>; headers?: Json };
}

let t: TestApp;
let doc: Doc;
const operations: [string, Operation][] = [];

interface Example {
  schema: Json;
  value: unknown;
  where: string;
}

/**
 * The examples of operation `name` with their schemas: its request bodies', then each
 * response's example and named examples; `media`: the request media types and the response
 * media types with a schema.
 */
function examplesOf(name: string, op: Operation): { examples: Example[]; media: number } {
  const examples: Example[] = [];
  let media = 0;
  for (const [type, m] of Object.entries(op.requestBody?.content ?? {})) {
    if (m.schema && m.example !== undefined)
      examples.push({ schema: m.schema, value: m.example, where: `${name} ${type}` });
    media++;
  }
  for (const [status, response] of Object.entries(op.responses)) {
    for (const [type, m] of Object.entries(response.content ?? {})) {
      if (!m.schema) continue;
      examples.push(...mediaExamples(m.schema, m, `${name} ${status}`, type));
      media++;
    }
  }
  return { examples, media };
}

/** A response media type's example (named by its type) and named examples (by their key). */
function mediaExamples(schema: Json, m: Media, where: string, type: string): Example[] {
  const out: Example[] = [];
  if (m.example !== undefined) out.push({ schema, value: m.example, where: `${where} ${type}` });
  for (const [key, ex] of Object.entries(m.examples ?? {}))
    out.push({ schema, value: ex.value, where: `${where} ${key}` });
  return out;
}

beforeAll(async () => {
  t = await createTestApp('sqlite', { config: { publicUrl: 'https://netrep.example.org/' } });
  const res = await t.app.http.inject({ method: 'GET', url: '/openapi.json' });
  doc = res.json() as Doc;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) operations.push([`${method.toUpperCase()} ${path}`, op]);
  }
});
afterAll(async () => {
  await t.close();
});

/** Health routes take no input, no key and no limit: nothing a caller sends can be wrong. */
const NO_CLIENT_ERROR = new Set(['getHealth', 'getReadiness']);

describe('/openapi.json', () => {
  it('names every operation once, with a summary, examples and its errors', () => {
    expect(operations.length).toBeGreaterThan(30);
    const ids = operations.map(([, op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [name, op] of operations) {
      expect(op.operationId, name).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.summary, name).toBeTruthy();
      if (op.requestBody) {
        const media = Object.values(op.requestBody.content);
        expect(
          media.some((m) => m.example !== undefined),
          `${name} request example`,
        ).toBe(true);
      }
      const ok = Object.values(op.responses['200']?.content ?? {});
      expect(
        ok.some((m) => m.example !== undefined || Object.keys(m.examples ?? {}).length > 0),
        `${name} response example`,
      ).toBe(true);
      const clientErrors = Object.keys(op.responses).filter((s) => s.startsWith('4'));
      if (!NO_CLIENT_ERROR.has(op.operationId ?? '')) expect(clientErrors, name).not.toEqual([]);
    }
  });

  it('documents each error status with the envelope, the codes it carries and an example of each', () => {
    for (const [name, op] of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        const media = response.content?.['application/json'];
        const [envelope, narrowed] = (media?.schema?.allOf ?? []) as Json[];
        expect(envelope, `${name} ${status}`).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
        const codes = (narrowed as { properties: { data: { properties: { code: { enum: string[] } } } } })
          .properties.data.properties.code.enum;
        for (const code of codes) {
          expect(ERRORS[code as keyof typeof ERRORS].status, `${name} ${code}`).toBe(Number(status));
          expect(response.description, name).toContain(code);
        }
        expect(Object.keys(media?.examples ?? {}).sort()).toEqual([...codes].sort());
      }
    }
  });

  it('gives every example in a shape its schema accepts', () => {
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    // One compiled check per schema: a response's named examples share it.
    const compiled = new WeakMap<Json, ReturnType<typeof ajv.compile>>();
    const validate = (schema: Json, value: unknown, where: string) => {
      const check = compiled.get(schema) ?? ajv.compile({ ...schema, components: doc.components });
      compiled.set(schema, check);
      expect(check(value), `${where}: ${ajv.errorsText(check.errors)}`).toBe(true);
    };
    let checked = 0;
    for (const [name, op] of operations) {
      const { examples, media } = examplesOf(name, op);
      for (const e of examples) validate(e.schema, e.value, e.where);
      checked += media;
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('has enums for feed, format and the error code, and the download media types', () => {
    const download = doc.paths['/v1/feeds/{feed}/download/{format}']?.get as Operation & {
      parameters: { name: string; schema: { enum?: string[] } }[];
    };
    const param = (n: string) => download.parameters.find((p) => p.name === n)?.schema.enum;
    expect(param('feed')).toContain('tor_exits');
    expect(param('format')).toEqual([
      'csv',
      'json',
      'plain',
      'bind',
      'nginx',
      'caddy',
      'iptables',
      'cloudflare',
    ]);
    expect(Object.keys(download.responses['200']?.content ?? {}).sort()).toEqual(
      ['application/json', 'text/csv', 'text/dns', 'text/plain', 'text/x-shellscript'].sort(),
    );
    expect(doc.components.schemas.ErrorCode?.enum).toEqual(Object.keys(ERRORS));
    expect(doc.components.schemas.IpAnswerKeyed).toBeDefined();
    expect(doc.components.schemas.IpAnswerPublic).toBeDefined();
  });

  it('documents the limit headers where they are sent, and Retry-After on 429', () => {
    const lookup = doc.paths['/v1/ip/{ip}']?.get as Operation;
    const headers = (status: string) => Object.keys(lookup.responses[status]?.headers ?? {});
    expect(headers('200')).toEqual(
      expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']),
    );
    expect(headers('429')).toContain('Retry-After');
    expect(headers('401')).not.toContain('X-RateLimit-Limit');
    expect(Object.keys(doc.components.headers ?? {})).toContain('Retry-After');
    expect(Object.keys(doc.paths['/healthz']?.get?.responses['200']?.headers ?? {})).toEqual([
      'X-Request-ID',
    ]);
  });

  it('carries the package version, the public URL as server, and cites no internal section', () => {
    const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(doc.info.version).toBe(pkg.version);
    expect(doc.servers).toEqual([{ url: 'https://netrep.example.org', description: 'This netrep instance' }]);
    // RFC sections are fine; the internal contract and spec are not the reader's documents.
    const cited = JSON.stringify(doc).match(/[^"]{0,60}(CONTRACT|spec §)[^"]{0,20}/g);
    expect(cited).toBeNull();
  });

  it('takes the server from the bound address when no public URL is set', () => {
    const config = { publicUrl: '', listen: '127.0.0.1:0' };
    expect(serverUrlOf(config, null)).toBe('http://127.0.0.1:0');
    expect(serverUrlOf(config, { address: '::1', family: 'IPv6', port: 8080 })).toBe('http://[::1]:8080');
    expect(serverUrlOf(config, { address: '127.0.0.1', family: 'IPv4', port: 41234 })).toBe(
      'http://127.0.0.1:41234',
    );
  });
});
