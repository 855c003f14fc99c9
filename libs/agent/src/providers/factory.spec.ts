import { AiSdkProvider } from './ai-sdk';
import { createProvider } from './factory';
import { OfflineProvider } from './offline';
import { ProviderError } from './types';

describe('createProvider', () => {
  it('builds the offline provider by default configuration', () => {
    const p = createProvider({ provider: 'offline', offlineDelayMs: 5 });
    expect(p).toBeInstanceOf(OfflineProvider);
    expect([p.name, p.model]).toEqual(['offline', 'scripted-v1']);
  });

  it('builds AI SDK providers for openai-compatible endpoints and anthropic', () => {
    const openai = createProvider({ provider: 'openai', model: 'llama3', baseUrl: 'http://127.0.0.1:11434/v1' });
    expect(openai).toBeInstanceOf(AiSdkProvider);
    expect([openai.name, openai.model]).toEqual(['openai', 'llama3']);
    expect(createProvider({ provider: 'anthropic', model: 'claude-x', apiKey: 'k' }).name).toBe('anthropic');
  });

  it('refuses configurations that cannot work, as non-retryable errors', () => {
    const attempt = (f: () => unknown) => {
      try {
        f();
      } catch (e: unknown) {
        return e;
      }
      throw new Error('expected a throw');
    };
    const noModel = attempt(() => createProvider({ provider: 'openai' }));
    expect(noModel).toBeInstanceOf(ProviderError);
    expect(noModel).toMatchObject({ code: 'INTERNAL', retryable: false });
    expect(attempt(() => createProvider({ provider: 'anthropic', model: 'm' }))).toMatchObject({ code: 'PROVIDER_AUTH', retryable: false });
  });
});
