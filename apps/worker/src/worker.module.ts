import { DynamicModule, Inject, Injectable, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { HubWorker } from './hub-worker';
import type { WorkerSettings } from './settings';

const SETTINGS = Symbol('WORKER_SETTINGS');

/** Starts the BullMQ consumers when the application context boots, closes them on shutdown. */
@Injectable()
class WorkerLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(HubWorker) private readonly worker: HubWorker) {}

  onApplicationBootstrap(): Promise<void> {
    return this.worker.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.worker.stop();
  }
}

/** The worker is a Nest application context with no HTTP: processors only. */
@Module({})
export class WorkerModule {
  static forRoot(settings: WorkerSettings): DynamicModule {
    return {
      module: WorkerModule,
      providers: [
        { provide: SETTINGS, useValue: settings },
        { provide: HubWorker, inject: [SETTINGS], useFactory: (s: WorkerSettings) => new HubWorker(s) },
        WorkerLifecycle,
      ],
      exports: [HubWorker],
    };
  }
}
