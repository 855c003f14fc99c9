/** Variable names whose values must never appear in a message or a log. */
const SECRET_NAME = /KEY|SECRET|TOKEN|PASSWORD/i;

const MAX_SHOWN = 80;

/** True when a variable's name marks it as a secret. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * How a value is shown in an error: quoted, secrets as `<redacted>`, a password inside a URL
 * (postgresql://user:pw@host) masked, long values cut.
 */
export function showValue(name: string, value: string | undefined): string {
  if (value === undefined) return 'nothing (unset)';
  if (isSecretName(name)) return '<redacted>';
  const masked = maskUrlPassword(value);
  const cut = masked.length > MAX_SHOWN ? `${masked.slice(0, MAX_SHOWN)}…` : masked;
  return JSON.stringify(cut);
}

function maskUrlPassword(value: string): string {
  if (!URL.canParse(value)) return value;
  const url = new URL(value);
  if (url.password === '') return value;
  url.password = '***';
  return url.toString();
}
