import { useState, type FormEvent } from 'react';
import { ApiError, HubApi } from '../api/client';
import { ProviderSignIn } from './ProviderSignIn';

/**
 * Sign-in with the tenant's identity provider when it has one (ProviderSignIn), or with an API
 * key (unless the tenant turned that off). The key is checked with one API call before it is kept; a bad or
 * revoked key gets a clear error and nothing else is shown.
 */
export function SignIn({ onSignedIn, message }: { onSignedIn: (key: string) => void; message: string | null }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(message);
  const [checking, setChecking] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const candidate = key.trim();
    if (!candidate) return setError('Paste an API key.');
    setChecking(true);
    setError(null);
    try {
      await new HubApi(candidate).approvals({ status: 'pending', limit: 1 });
      onSignedIn(candidate);
    } catch (err) {
      setKey('');
      if (err instanceof ApiError && err.status === 401) setError('That API key was refused: it is wrong, expired or revoked.');
      else if (err instanceof ApiError && err.status === 403) setError('That API key may not read approvals or sessions.');
      else setError(`Cannot reach the hub: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      setChecking(false);
    }
  };

  return (
    <main className="signin">
      <h1>Harness Hub</h1>
      <ProviderSignIn
        apiKeyForm={
          <form onSubmit={(e) => void submit(e)} aria-describedby="signin-help">
            <label htmlFor="api-key">API key</label>
            <input
              id="api-key"
              name="api-key"
              type="password"
              autoComplete="off"
              spellCheck={false}
              value={key}
              onChange={(e) => setKey(e.target.value)}
              autoFocus
            />
            <button type="submit" disabled={checking}>
              {checking ? 'Checking…' : 'Sign in'}
            </button>
            <p id="signin-help" className="muted">
              The key is kept for this browser tab only and is sent only in request headers.
            </p>
            {error && (
              <p className="state error" role="alert">
                {error}
              </p>
            )}
          </form>
        }
      />
    </main>
  );
}
