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
        summary: 'Re-read the newest built dataset snapshot (netrep dataset build) without a restart.',
        response: { 200: envelope(ReloadResult), ...errorResponses('NOT_FOUND', 'NOT_READY') },
      },
    },
    async () => {
      const { previous, current } = runtime.reload();
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
