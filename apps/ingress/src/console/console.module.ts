import { Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { dirname, extname, join, normalize, sep } from 'node:path';

/**
 * The console's built assets (apps/console, `npm run build:console`) under `/console`: the same
 * origin as the API, so the browser needs no CORS and talks to the public API like any client.
 * No key is needed for the assets; everything they show comes from key-checked API calls.
 */
export const CONSOLE_PATH = '/console';

/**
 * No inline script, no eval, nothing from another origin: a tool argument that smuggles markup
 * into the page could not run even if it were ever rendered as HTML (it is rendered as text).
 * `connect-src 'self'` covers the same-origin WebSocket.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.map': 'application/json',
};

/** apps/console/dist, found from here whether ingress runs from its sources or from dist/. */
function findConsoleDist(from = __dirname): string | null {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, 'apps', 'console', 'dist');
    if (existsSync(join(dir, 'apps', 'console', 'index.html'))) return candidate;
  }
  return null;
}

/** The file a request path names inside `root`, or null for a path that escapes it. */
export function consoleFile(root: string, urlPath: string): string | null {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath.slice(CONSOLE_PATH.length).split('?')[0]);
  } catch {
    return null;
  }
  const file = normalize(join(root, rel));
  if (file !== root && !file.startsWith(root + sep)) return null;
  return file;
}

export function serveConsole(root: string | null = findConsoleDist()) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    res.setHeader('Content-Security-Policy', CONSOLE_CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    const index = root ? join(root, 'index.html') : null;
    if (!root || !index || !existsSync(index)) {
      res.status(503).type('text/plain').send('The console is not built: run `npm run build:console` (bin/hub up builds it).\n');
      return;
    }
    const file = consoleFile(root, req.originalUrl);
    if (file === null) {
      res.status(404).type('text/plain').send('not found\n');
      return;
    }
    const isAsset = extname(file) !== '' && existsSync(file) && statSync(file).isFile();
    // A path without a file is a screen of the single-page app: its index.html.
    if (!isAsset && extname(file) !== '') {
      res.status(404).type('text/plain').send('not found\n');
      return;
    }
    const target = isAsset ? file : index;
    res.setHeader('Content-Type', TYPES[extname(target)] ?? 'application/octet-stream');
    // Hashed asset names never change; index.html must be fetched again to see a new build.
    res.setHeader('Cache-Control', target.includes(`${sep}assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    createReadStream(target).on('error', next).pipe(res);
  };
}

/**
 * Mounted with Express's `use` (after Nest's routes, before its not-found handler): static files
 * are no API route, so they are neither Nest routes nor in the OpenAPI document.
 */
@Module({})
export class ConsoleModule implements OnModuleInit {
  constructor(private readonly http: HttpAdapterHost) {}

  onModuleInit(): void {
    const serve = serveConsole();
    this.http.httpAdapter.use(CONSOLE_PATH, (req: Request, res: Response, next: NextFunction) => serve(req, res, next));
  }
}
