/**
 * What an API key looks like: `hub_<12 visible chars>_<43 secret chars>`. The visible prefix
 * names the key in events, logs and `key revoke`; the whole key is a secret. Declared once here
 * (pure, below every lib) for @hub/auth, which issues and verifies keys, and for the checks
 * that no key leaked into an event or a log line.
 */
export const API_KEY_PREFIX_TEXT = 'hub_[A-Za-z0-9]{12}';
export const API_KEY_SECRET_TEXT = '[A-Za-z0-9_-]{43}';
/** A full key anywhere in a text, as a regular expression's source (JavaScript and Postgres alike). */
export const API_KEY_TEXT = `${API_KEY_PREFIX_TEXT}_${API_KEY_SECRET_TEXT}`;
