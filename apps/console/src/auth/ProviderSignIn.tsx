import { useEffect, useState } from 'react';
import { loginUrl, signInOptions, tenantInUrl, type SignInOptions } from './person';

/**
 * "Sign in with <provider>" beside the API-key form, when the tenant (or the deployment) has an
 * identity provider; `apiKeyForm` renders the API-key form unless the tenant turned it off.
 */
export function ProviderSignIn({ apiKeyForm }: { apiKeyForm: React.ReactNode }) {
  const [options, setOptions] = useState<SignInOptions | null>(null);
  useEffect(() => {
    let live = true;
    void signInOptions(tenantInUrl())
      .catch(() => ({ oidc: null, apiKeyConsole: true }))
      .then((o) => live && setOptions(o));
    return () => {
      live = false;
    };
  }, []);
  if (options === null) return null;
  return (
    <>
      {options.oidc && (
        <p>
          <a className="button primary" href={loginUrl(options.oidc.tenantId)}>
            Sign in with {options.oidc.name}
          </a>
        </p>
      )}
      {options.apiKeyConsole ? apiKeyForm : <p className="muted">Sign-in with an API key is turned off for this tenant.</p>}
    </>
  );
}
