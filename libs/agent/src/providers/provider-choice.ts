import type { TurnContext } from '@hub/domain';
import { createProvider, type ProviderConfig } from './factory';
import type { ModelProvider } from './types';

/** Distinct models one worker keeps clients for; the least recently used goes first past this. */
const MAX_MODELS = 32;

/**
 * The model a turn runs on: the configured one, or another model of the same provider when the
 * turn's context names one (`context.model`, e.g. a re-drive's target). Only the model name
 * comes from the turn; the provider, endpoint and key stay the operator's.
 */
export class ProviderChoice {
  readonly configured: ModelProvider;
  private readonly byModel = new Map<string, ModelProvider>();

  constructor(private readonly config: ProviderConfig) {
    this.configured = createProvider(config);
  }

  for(context: TurnContext): ModelProvider {
    const model = context['model'];
    if (typeof model !== 'string' || model === '' || model === this.config.model) return this.configured;
    let provider = this.byModel.get(model);
    if (provider) this.byModel.delete(model);
    else provider = createProvider({ ...this.config, model });
    this.byModel.set(model, provider);
    if (this.byModel.size > MAX_MODELS) this.byModel.delete(this.byModel.keys().next().value as string);
    return provider;
  }
}
