/** Operator dataset control (CONTRACT §4): swap in the newest built snapshot without a restart. */
import { Type } from '@sinclair/typebox';
import { AppError } from '../../core/errors.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import { reloadDatasetExample } from '../examples/admin.ts';
import { envelope, errorResponses } from '../schemas.ts';

const ReloadResult = Type.Object({
  previous_version: Type.Union([Type.Integer(), Type.Null()], { description: 'Version served before' }),
  dataset_version: Type.Integer({ description: 'Version served now' }),
  reloaded: Type.Boolean({ description: 'True when a different version was swapped in' }),
});

export function adminDatasetRoutes(app: HttpApp, services: HttpServices): void {
  const runtime = services.intel;
  app.post(
    '/v1/admin/datasets/reload',
    {
      config: { access: { kind: 'key', permission: 'admin' } },
      schema: {
        tags: ['admin'],
        operationId: 'reloadDataset',
        examples: reloadDatasetExample,
        summary:
          'Re-read the newest built dataset snapshot (netrep dataset build) without a restart. Its files are read and checked against their sizes and SHA-256 without holding the event loop; a broken snapshot is refused with 409 DATASET_BROKEN naming it and the reason, and the serving version is kept.',
        response: {
          200: envelope(ReloadResult),
          ...errorResponses('NOT_FOUND', 'NOT_READY', 'DATASET_BROKEN'),
        },
      },
    },
    async () => {
      const { previous, current, refused } = await runtime.reload();
      if (refused) {
        throw new AppError(
          'DATASET_BROKEN',
          `dataset v${refused.version} is broken (${refused.reason}); ${current === null ? 'no dataset is served' : `still serving v${current}`}: rebuild it with netrep dataset build, or check it with netrep dataset verify`,
          current === null ? {} : { meta: { dataset_version: current } },
        );
      }
      if (current === null) {
        throw new AppError('NOT_FOUND', 'no dataset snapshot is built yet: run netrep dataset build');
      }
      return {
        data: { previous_version: previous, dataset_version: current, reloaded: previous !== current },
        meta: { dataset_version: current },
      };
    },
  );
}
