import { trace, type Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { ATTR } from './attributes';

/*
 * The correlation id lives in a module-level AsyncLocalStorage rather than in OTel baggage:
 * - it works whether or not the SDK was started (the logger and event metadata need it in unit
 *   tests and CLI modes too);
 * - baggage is injected into every outgoing request by the propagator, and the hub does not send
 *   its correlation ids to model providers or MCP servers.
 * It crosses process boundaries explicitly: the X-Correlation-ID header and command/event
 * metadata, never implicitly.
 */
const storage = new AsyncLocalStorage<string>();

const tenants = new AsyncLocalStorage<string>();

/** Runs `fn` with `tenantId` as the tenant its log lines name (`tenant_id`). */
export function runWithTenant<T>(tenantId: string, fn: () => T): T {
  return tenants.run(tenantId, fn);
}

/** The tenant of the current async context, if one was set by {@link runWithTenant}. */
export function currentTenantId(): string | undefined {
  return tenants.getStore();
}

/** Runs `fn` with `correlationId` as the current correlation id (for spans, logs, metadata). */
export function runWithCorrelation<T>(correlationId: string, fn: () => T): T {
  return storage.run(correlationId, fn);
}

/** The correlation id of the current async context, if one was set by {@link runWithCorrelation}. */
export function currentCorrelationId(): string | undefined {
  return storage.getStore();
}

// Visible ASCII only: the id is echoed into headers and logs, so no spaces or control characters.
const VALID_CORRELATION_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * The correlation id for a request: the caller's `X-Correlation-ID` when it is printable ASCII
 * without spaces and at most 128 characters (surrounding whitespace ignored), else a new UUID.
 */
export function correlationIdFrom(headerValue?: string): string {
  const candidate = headerValue?.trim();
  return candidate !== undefined && VALID_CORRELATION_ID.test(candidate) ? candidate : randomUUID();
}

/**
 * Puts the current correlation id on every span when it starts, so no call site has to remember
 * to (invariant 7: the correlation id is on each span).
 */
export class CorrelationSpanProcessor implements SpanProcessor {
  onStart(span: Span, parentContext: Context): void {
    // Outside a correlation context (a library's span that starts before our code has run, such as
    // Express's middleware spans under the HTTP server span), the parent's id, when it has one.
    const parent = trace.getSpan(parentContext) as Partial<ReadableSpan> | undefined;
    const correlationId = currentCorrelationId() ?? parent?.attributes?.[ATTR.CORRELATION_ID];
    if (typeof correlationId === 'string') span.setAttribute(ATTR.CORRELATION_ID, correlationId);
  }

  onEnd(): void {
    // Nothing to do at end: the attribute was set at start.
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
