import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Logger } from '@nestjs/common';
import { hubMetrics } from '@hub/telemetry';

const QUIET = new Set(['/health', '/metrics']);

/**
 * The HTTP access log: one line per request when it finishes (method, route pattern, status,
 * milliseconds; never the query string or a header), and the `hub.http.requests` counter.
 * Probes and scrapes log at debug.
 */
export function accessLog(): RequestHandler {
  const log = new Logger('http');
  return (req: Request, res: Response, next: NextFunction) => {
    const t0 = performance.now();
    res.once('finish', () => {
      const path = req.path;
      // The matched route's pattern (`/v1/sessions/:id/state`) keeps one series per endpoint.
      const route = req.route?.path === undefined ? 'unmatched' : `${req.baseUrl}${String(req.route.path)}`;
      // The tenant, once the API-key guard has found it (never the key itself).
      const tenant = (req as Request & { principal?: { tenantId: string } }).principal?.tenantId;
      const line = {
        msg: 'http request',
        method: req.method,
        route,
        path,
        status: res.statusCode,
        ms: Math.round(performance.now() - t0),
        ...(tenant === undefined ? {} : { tenant_id: tenant }),
      };
      if (QUIET.has(path)) log.debug(line);
      else log.log(line);
      hubMetrics().httpRequests.add(1, { method: req.method, route, status: res.statusCode });
    });
    next();
  };
}
