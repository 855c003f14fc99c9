import { DomainError } from '@hub/domain';
import { ProviderError } from '@hub/agent';
import { isRetryable } from './retryability';

describe('isRetryable', () => {
  it('retries contention and unavailable dependencies, not rule violations', () => {
    expect(isRetryable(new DomainError('STREAM_VERSION_CONFLICT', 'x'))).toBe(true);
    expect(isRetryable(new DomainError('PROVIDER_DOWN', 'x'))).toBe(true);
    expect(isRetryable(new DomainError('SESSION_BUSY', 'x'))).toBe(false);
    expect(isRetryable(new DomainError('INVALID_COMMAND', 'x'))).toBe(false);
  });

  it('follows a provider error’s own verdict', () => {
    expect(isRetryable(new ProviderError('PROVIDER_AUTH', 'bad key'))).toBe(false);
    expect(isRetryable(new ProviderError('PROVIDER_RATE_LIMIT', 'slow down'))).toBe(true);
  });

  it('treats errors that are not ours (driver, network) as transient', () => {
    expect(isRetryable(new Error('ECONNRESET'))).toBe(true);
  });
});
