const INFRASTRUCTURE = /\b(?:\d{1,3}(?:\.\d{1,3}){3}|localhost|\[[0-9a-fA-F:]+\])(?::\d+)?\b|\bE[A-Z]{3,}\b|\b[a-zA-Z][a-zA-Z0-9+.-]*:\/\/\S+@/;

/**
 * Whether `message` shows where our infrastructure lives: an address (`127.0.0.1:5432`), an OS
 * error code (`ECONNREFUSED`), a URL with credentials. Such text is for the log, never a client.
 */
export function namesInfrastructure(message: string): boolean {
  return INFRASTRUCTURE.test(message);
}

/** Codes whose recorded message is a driver's, a queue library's or a provider's text, never ours. */
const OPAQUE = new Set(['INTERNAL', 'INVALID_EVENT']);

/**
 * A failed turn's message as any client sees it, on every protocol. The log keeps the worker's
 * whole message (operators read it there, by turn and correlation id); the wire never shows an
 * internal one, nor one that names an address (issue 11, defect 9: error frames carried
 * `connect ECONNREFUSED 127.0.0.1:5432`).
 */
export function publicFailureMessage(code: string, message: string): string {
  if (OPAQUE.has(code)) return 'internal error';
  return namesInfrastructure(message) ? `the turn failed (${code})` : message;
}
