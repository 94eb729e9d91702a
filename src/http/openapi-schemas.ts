/**
 * Named component schemas for /openapi.json. The route schemas stay as they are (validation and
 * serialization use them inline); in the document, every shape known here by object identity
 * becomes a `$ref` to `#/components/schemas/<Name>`, and so do each operation's request body and
 * answer data under `<OperationId>Body` / `<OperationId>Data` when the domain gave them no name.
 */
import type { TSchema } from '@sinclair/typebox';
import { ApiKeyInfo } from '../accounts/index.ts';
import {
  BatchCheckAnswer,
  CheckAnswer,
  DelistAnswer,
  DelistBody,
  ListBody,
  ListingAnswer,
  RecentAnswer,
  StatsAnswer,
} from '../blocklist/index.ts';
import { DomainAuthResultSchema, DomainDnsResultSchema, SpfCheckResultSchema } from '../emailauth/index.ts';
import { FeedCatalogSchema, FeedFormatSchema, FeedManifestSchema, FeedNameSchema } from '../feeds/index.ts';
import { HeaderAnalysisSchema, HeaderAnalyzerBodySchema } from '../headers/index.ts';
import {
  AsnInfo,
  AsnReputation,
  AsnSearchResult,
  AsnStats,
  IpAnswer,
  IpAnswerExtended,
} from '../intel/schemas.ts';
import { BatchReputationItem, ReputationData, SubnetSummary } from '../reputation/index.ts';
import { IngestResult } from '../telemetry/index.ts';
import { PoolClassificationItem, WarmupData } from '../warmup/index.ts';
import { IpAnswerKeyed, IpAnswerPublic } from './ip-answers.ts';
import {
  DOC_SCHEMA,
  ErrorCodeSchema,
  ErrorData,
  ErrorEnvelope,
  Meta,
  stringLiteralsOf,
  VALUE_KEYWORDS,
} from './schemas.ts';

/** The shapes the domains define, under the names they have in the code. */
export const KNOWN: ReadonlyArray<readonly [string, TSchema]> = [
  ['Meta', Meta],
  ['ErrorEnvelope', ErrorEnvelope],
  ['ErrorData', ErrorData],
  ['ErrorCode', ErrorCodeSchema],
  ['IpAnswer', IpAnswer],
  ['IpAnswerExtended', IpAnswerExtended],
  ['IpAnswerKeyed', IpAnswerKeyed],
  ['IpAnswerPublic', IpAnswerPublic],
  ['AsnInfo', AsnInfo],
  ['AsnReputation', AsnReputation],
  ['AsnSearchResult', AsnSearchResult],
  ['AsnStats', AsnStats],
  ['CheckAnswer', CheckAnswer],
  ['BatchCheckAnswer', BatchCheckAnswer],
  ['RecentAnswer', RecentAnswer],
  ['StatsAnswer', StatsAnswer],
  ['ListBody', ListBody],
  ['ListingAnswer', ListingAnswer],
  ['DelistBody', DelistBody],
  ['DelistAnswer', DelistAnswer],
  ['ApiKeyInfo', ApiKeyInfo],
  ['DomainDnsResult', DomainDnsResultSchema],
  ['DomainAuthResult', DomainAuthResultSchema],
  ['SpfCheckResult', SpfCheckResultSchema],
  ['HeaderAnalyzerBody', HeaderAnalyzerBodySchema],
  ['HeaderAnalysis', HeaderAnalysisSchema],
  ['ReputationData', ReputationData],
  ['BatchReputationItem', BatchReputationItem],
  ['SubnetSummary', SubnetSummary],
  ['WarmupData', WarmupData],
  ['PoolClassificationItem', PoolClassificationItem],
  ['IngestResult', IngestResult],
  ['FeedCatalog', FeedCatalogSchema],
  ['FeedManifest', FeedManifestSchema],
  ['FeedName', FeedNameSchema],
  ['FeedFormat', FeedFormatSchema],
];

type Json = Record<string, unknown>;

export interface SchemaNames {
  /** `{$ref}` to the schema's component, named `fallback` unless it already has a name. */
  refTo(schema: unknown, fallback: string): Json;
  /** A copy of the schema for the document, its named parts replaced by `$ref`s. */
  inline(schema: unknown): unknown;
  /** The 200 envelope with `data` named (`fallback` unless known) and `meta` as `Meta`. */
  envelopeOf(schema: Json, fallback: string): Json;
  /** Every component referenced so far, by name, as document schemas. */
  components(): Record<string, unknown>;
}

const REF = '#/components/schemas/';

/** TypeBox writes a union of string literals as `anyOf: [{const}, …]`; OpenAPI readers want `enum`. */
function asEnum(schema: Json): Json | null {
  const values = stringLiteralsOf(schema);
  if (values === null) return null;
  const { anyOf: _members, ...rest } = schema;
  return { ...rest, type: 'string', enum: values };
}

export function createSchemaNames(): SchemaNames {
  const nameOf = new Map<unknown, string>(KNOWN.map(([name, schema]) => [schema, name]));
  const used = new Map<string, unknown>();

  const refTo = (schema: unknown, fallback: string): Json => {
    let name = nameOf.get(schema);
    if (name === undefined) {
      name = fallback;
      nameOf.set(schema, name);
    }
    used.set(name, schema);
    return { $ref: `${REF}${name}` };
  };

  const convert = (node: unknown, self: unknown): unknown => {
    if (Array.isArray(node)) return node.map((n) => convert(n, self));
    if (node === null || typeof node !== 'object') return node;
    if (node !== self && nameOf.has(node)) return refTo(node, '');
    const documented = (node as { [DOC_SCHEMA]?: unknown })[DOC_SCHEMA];
    if (documented !== undefined) return convert(documented, self);
    return convertKeywords(node, self);
  };

  /** An object schema's keywords converted, its `$id` dropped; a union of string literals becomes an enum. */
  const convertKeywords = (node: object, self: unknown): Json => {
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$id') continue;
      // Examples and defaults are data, not schemas: copied as they are.
      out[k] = VALUE_KEYWORDS.has(k) ? v : convert(v, self);
    }
    return asEnum(out) ?? out;
  };

  return {
    refTo,
    inline: (schema) => convert(schema, null),
    envelopeOf(schema, fallback) {
      const props = (schema.properties ?? {}) as Json;
      return {
        ...(convert(schema, schema) as Json),
        properties: { data: refTo(props.data, fallback), meta: refTo(Meta, 'Meta') },
      };
    },
    components() {
      const out: Record<string, unknown> = {};
      // Converting a component can reference further ones: repeat until none is new.
      while (used.size > Object.keys(out).length) {
        for (const [name, schema] of used) {
          if (!(name in out)) out[name] = convert(schema, schema);
        }
      }
      return out;
    },
  };
}
