import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AiSdkProvider } from './ai-sdk';
import { OfflineProvider } from './offline';
import { ProviderError, type ModelProvider } from './types';

/** Which model the hub talks to. Parsed from configuration by the app, never read from env here. */
export interface ProviderConfig {
  provider: 'offline' | 'openai' | 'anthropic';
  /** Required for `openai` and `anthropic`. */
  model?: string;
  /** `openai`: the endpoint's `/v1` base (vLLM, Ollama, ...). `anthropic`: defaults to the public API. */
  baseUrl?: string;
  apiKey?: string;
  /** Pause between the offline provider's chunks. */
  offlineDelayMs?: number;
}

/** Default base URL for `openai` when none is configured. */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/**
 * Builds the configured provider. `openai` means any OpenAI-compatible chat completions
 * endpoint. Throws a non-retryable {@link ProviderError} when the configuration cannot work.
 */
export function createProvider(config: ProviderConfig): ModelProvider {
  switch (config.provider) {
    case 'offline':
      return new OfflineProvider({ delayMs: config.offlineDelayMs ?? 0, model: config.model });
    case 'openai': {
      const model = requireModel(config);
      const openai = createOpenAICompatible({
        name: 'openai',
        baseURL: config.baseUrl ?? OPENAI_DEFAULT_BASE_URL,
        apiKey: config.apiKey,
        includeUsage: true,
      });
      return new AiSdkProvider('openai', model, openai.chatModel(model));
    }
    case 'anthropic': {
      const model = requireModel(config);
      // Without a key the SDK would fall back to reading the environment itself; the hub's
      // configuration is the only source of secrets, so a missing key is a config error.
      if (!config.apiKey) throw new ProviderError('PROVIDER_AUTH', 'the anthropic provider needs an apiKey', { retryable: false });
      const anthropic = createAnthropic({ baseURL: config.baseUrl, apiKey: config.apiKey });
      return new AiSdkProvider('anthropic', model, anthropic(model));
    }
  }
}

function requireModel(config: ProviderConfig): string {
  if (!config.model) throw new ProviderError('INTERNAL', `the ${config.provider} provider needs a model name`, { retryable: false });
  return config.model;
}
