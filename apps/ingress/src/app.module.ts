import { AdminController } from './admin/admin.controller';
import { ScheduleRunner } from './schedules/schedule-runner';
import { SchedulesController } from './schedules/schedules.controller';
import { MetricsController } from './observability/metrics.controller';
import { DynamicModule, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { A2aController } from './a2a/a2a.controller';
import { AcpGateway } from './acp/acp.gateway';
import { AgUiController, AgUiRuns } from './ag-ui';
import { ApiKeyGuard } from './auth/api-key.guard';
import { BodyErrorGuard } from './http/body-errors';
import { CommandService } from './commands/command.service';
import { SessionDecisions } from './commands/session-decisions';
import { ConsoleModule } from './console/console.module';
import { HealthController } from './health/health.controller';
import { CorrelationMiddleware } from './http/correlation.middleware';
import { ProblemFilter } from './http/problem';
import { hubProviders, type IngressSettings } from './hub.providers';
import { HubResources } from './hub-resources';
import { EventStreams } from './http/event-streams';
import { OpenEnvController, OpenEnvEpisodes, OpenEnvHarnessGateway, OpenEnvMcp, OpenEnvWsGateway } from './openenv';
import { OpenHarnessController } from './openharness';
import { UsageController } from './read-models/usage.controller';
import { ApprovalsController } from './read-models/approvals.controller';
import { readModelProviders } from './read-models/providers';
import { SessionListController } from './read-models/sessions-list.controller';
import { SessionAccess } from './auth/session-access';
import { limitProviders } from './limits/limit-providers';
import { TenantLimitsService } from './limits/tenant-limits';
import { TenantSockets } from './limits/tenant-sockets';
import { LineageController } from './sessions/lineage.controller';
import { SessionsController } from './sessions/sessions.controller';
import { SessionStreams } from './streams/session-streams.service';
import { TurnOutcomes } from './streams/turn-outcome.service';
import { TransportGateway } from './transport/transport.gateway';
import { ZeneController, ZeneRunService, ZeneService } from './zene';
import { webhookControllers, webhookProviders } from './webhooks/providers';
import { oidcControllers, oidcProviders } from './auth/oidc.providers';
import { policyControllers, policyProviders } from './admin/policy.providers';

@Module({})
export class IngressModule implements NestModule {
  static forRoot(settings: IngressSettings): DynamicModule {
    return {
      module: IngressModule,
      imports: [ConsoleModule],
      controllers: [
        HealthController,
        MetricsController,
        AdminController,
        ...oidcControllers,
        ...webhookControllers,
        SessionListController,
        ApprovalsController,
        UsageController,
        SessionsController,
        LineageController,
        ZeneController,
        OpenHarnessController,
        OpenEnvController,
        AgUiController,
        SchedulesController,
        A2aController,
        ...policyControllers,
      ],
      providers: [
        ...hubProviders(settings),
        HubResources,
        EventStreams,
        ...limitProviders(settings),
        ...readModelProviders(settings),
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_GUARD, useClass: BodyErrorGuard },
        { provide: APP_FILTER, useClass: ProblemFilter },
        SessionAccess,
        TenantLimitsService,
        SessionDecisions,
        TenantSockets,
        CommandService,
        SessionStreams,
        TurnOutcomes,
        TransportGateway,
        AcpGateway,
        OpenEnvEpisodes,
        OpenEnvWsGateway,
        OpenEnvHarnessGateway,
        OpenEnvMcp,
        ZeneService,
        ZeneRunService,
        ...webhookProviders,
        ...oidcProviders,
        AgUiRuns,
        ScheduleRunner,
        ...policyProviders,
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(CorrelationMiddleware).forRoutes('*');
  }
}
