/**
 * The dataset status answer (status.ts) as a TypeBox schema, for /readyz and the OpenAPI
 * document. A public entry of its own so that index.ts (and so the CLI's dataset commands) does
 * not load TypeBox.
 */
import { Type } from '@sinclair/typebox';

const Iso = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

export const DatasetStatusSchema = Type.Object(
  {
    version: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The snapshot described (the serving one), null before one is loaded.',
    }),
    built_at: Iso('When the snapshot was built.'),
    age_seconds: Type.Union([Type.Integer(), Type.Null()], { description: 'Seconds since built_at.' }),
    upstream: Type.Boolean({
      description:
        'false: the snapshot is built only from the bundled npm packages, so every flag that comes from an upstream list is false.',
    }),
    summary: Type.String({ description: 'One sentence saying what the snapshot holds.' }),
    verified: Type.Optional(
      Type.Union([Type.Boolean(), Type.Null()], {
        description:
          "true: the snapshot's manifest lists each file's size and SHA-256 and they were checked; false: a snapshot built before 2026-11-27 without them (sizes checked only); null: no snapshot.",
      }),
    ),
    refused: Type.Optional(
      Type.Array(
        Type.Object({
          version: Type.Integer(),
          reason: Type.String({
            description: 'Why it cannot be served (the file and what is wrong with it).',
          }),
        }),
        {
          description:
            'Newer snapshots on disk refused as broken (truncated, missing or altered files), newest first; the version above is the newest intact one.',
        },
      ),
    ),
    families: Type.Array(
      Type.Object({
        family: Type.String({
          description:
            'Source family: the top directory of the sources (tor, cloud, bots, spamhaus, ...); `bundled` for the npm packages.',
        }),
        sources: Type.Integer({ description: 'Source files of the family in the snapshot.' }),
        rows: Type.Integer({ description: 'Rows read from them.' }),
        built_at: Type.String({ format: 'date-time', description: 'When the build that read them ran.' }),
        age_seconds: Type.Integer({ description: 'Seconds since built_at.' }),
      }),
    ),
    update: Type.Object({
      schedule: Type.String({ description: 'NETREP_DATASET_UPDATE: off, daily or an interval.' }),
      last_attempt_at: Iso('The last dataset update attempt on this data dir.'),
      last_result: Type.Union(
        [Type.Literal('ok'), Type.Literal('partial'), Type.Literal('failed'), Type.Null()],
        {
          description:
            'ok: every download worked and the snapshot was built; partial: built although some downloads failed (first start); failed: nothing built, the previous snapshot stays.',
        },
      ),
      last_error: Type.Union([Type.String(), Type.Null()]),
      last_success_at: Iso('The last update that downloaded every source and built.'),
      consecutive_failures: Type.Integer({
        description: 'Failed or partial attempts in a row (the retry back-off).',
      }),
      next_attempt_at: Iso('When the next attempt is due; null when updates are off or unknown.'),
    }),
    sources: Type.Array(
      Type.Object({
        id: Type.String(),
        family: Type.String(),
        in_snapshot: Type.Boolean(),
        rows: Type.Union([Type.Integer(), Type.Null()]),
        attempted_at: Iso('The last download of this source.'),
        ok: Type.Union([Type.Boolean(), Type.Null()], {
          description: 'How it went; null: never downloaded.',
        }),
        error: Type.Union([Type.String(), Type.Null()]),
        last_ok_at: Iso('The last download of it that worked.'),
        failures: Type.Integer({ description: 'Failed downloads of it in a row.' }),
      }),
      { description: 'Upstream sources in the snapshot or ever downloaded, with their last download.' },
    ),
  },
  { description: 'What the serving dataset snapshot holds and how its updates went.' },
);
