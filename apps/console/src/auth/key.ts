// The API key lives in sessionStorage only: gone when the tab closes, never in a URL, a cookie or
// localStorage, never logged.
const STORAGE_KEY = 'hub.apiKey';

export function storedKey(): string | null {
  return sessionStorage.getItem(STORAGE_KEY);
}

export function storeKey(key: string): void {
  sessionStorage.setItem(STORAGE_KEY, key);
}

export function clearKey(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/** The non-secret part of a key (`hub_<prefix>`), what the hub's own logs show. */
export function keyPrefix(key: string): string {
  const m = /^(hub_[A-Za-z0-9]+)_/.exec(key);
  return m ? m[1] : 'key';
}
