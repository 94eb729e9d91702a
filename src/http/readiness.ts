/**
 * What a starting instance tells /readyz while its first dataset is built or loaded (issue #36
 * item 1): what it does and when it expects to serve. One schema for the 503's meta, the OpenAPI
 * document and the services that fill it (app/start-eta.ts).
 */
import { type Static, Type } from '@sinclair/typebox';

const DatasetStartSchema = Type.Object(
  {
    activity: Type.Union([Type.Literal('building'), Type.Literal('loading')], {
      description:
        '`building`: the first snapshot is built from the npm data packages (no snapshot on disk yet); `loading`: a snapshot on disk is read and indexed.',
    }),
    doing: Type.String({ description: 'The same in words, e.g. "loading dataset snapshot v3".' }),
    version: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The snapshot being loaded; null while the first one is built.',
    }),
    started_at: Type.String({
      format: 'date-time',
      description: 'When the start began reading or building.',
    }),
    elapsed_seconds: Type.Integer(),
    expected_seconds: Type.Integer({ description: 'How long the whole start is expected to take.' }),
    remaining_seconds: Type.Integer({ description: 'expected_seconds - elapsed_seconds, at least 0.' }),
    eta_basis: Type.Union(
      [
        Type.Literal('previous build'),
        Type.Literal('previous load'),
        Type.Literal('input sizes'),
        Type.Literal('snapshot size'),
      ],
      {
        description:
          'Where the expectation comes from: the duration recorded for the last build or load in this data dir, or, with none recorded, the size of the npm data (a build) or of the snapshot (a load) at the rate of an otherwise idle machine.',
      },
    ),
  },
  { description: 'The dataset an instance is starting with, while it is not ready yet.' },
);
export type DatasetStart = Static<typeof DatasetStartSchema>;
