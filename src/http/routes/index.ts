/**
 * Every route file of the API, in registration order (the order of /openapi.json). The HTTP
 * server registers this list; a new route file is added here and nowhere else.
 */
import type { RouteModule } from '../context.ts';
import { adminBlocklistRoutes } from './admin-blocklist.ts';
import { adminDatasetRoutes } from './admin-datasets.ts';
import { adminEvidenceRoutes } from './admin-evidence.ts';
import { adminKeyRoutes } from './admin-keys.ts';
import { asnRoutes } from './asn.ts';
import { auditRoutes } from './audit.ts';
import { blocklistRoutes } from './blocklist.ts';
import { blocklistsCheckRoutes } from './blocklists-check.ts';
import { dashboardRoutes } from './dashboard.ts';
import { dashboardAuditRoutes } from './dashboard-audit.ts';
import { dashboardReportRoutes } from './dashboard-reports.ts';
import { dashboardWebhookRoutes } from './dashboard-webhooks.ts';
import { emailDomainRoutes } from './email-domain.ts';
import { emailReportViewRoutes } from './email-report-views.ts';
import { emailReportRoutes } from './email-reports.ts';
import { emailReputationRoutes } from './email-reputation.ts';
import { feedRoutes } from './feeds.ts';
import { headerAnalyzerRoutes } from './header-analyzer.ts';
import { healthRoutes } from './health.ts';
import { ipRoutes } from './ip.ts';
import { savedIpRoutes } from './saved-ips.ts';
import { telemetryRoutes } from './telemetry.ts';
import { toolPageRoutes } from './tool-pages.ts';
import { webhookRoutes } from './webhooks.ts';

export const ROUTE_MODULES: readonly RouteModule[] = [
  healthRoutes,
  adminKeyRoutes,
  blocklistRoutes,
  blocklistsCheckRoutes,
  adminBlocklistRoutes,
  emailDomainRoutes,
  headerAnalyzerRoutes,
  dashboardRoutes,
  emailReputationRoutes,
  telemetryRoutes,
  adminEvidenceRoutes,
  feedRoutes,
  ipRoutes,
  asnRoutes,
  adminDatasetRoutes,
  toolPageRoutes,
  auditRoutes,
  savedIpRoutes,
  webhookRoutes,
  dashboardWebhookRoutes,
  dashboardAuditRoutes,
  emailReportRoutes,
  emailReportViewRoutes,
  dashboardReportRoutes,
];
