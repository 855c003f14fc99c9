import type { Provider } from '@nestjs/common';
import { EventStore } from '@hub/event-store';
import { TenantPolicies } from '@hub/policy';
import { PolicyController } from './policy.controller';

/** The approval policy's routes and their store (the tenant admin stream, through the event store). */
export const policyControllers = [PolicyController];
export const policyProviders: Provider[] = [{ provide: TenantPolicies, inject: [EventStore], useFactory: (store: EventStore) => new TenantPolicies(store) }];
