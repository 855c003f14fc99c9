/** A redirect to a URL the operator does not allow (`HUB_MCP_HTTP_URLS`). */
export class McpRedirectRefused extends Error {
  override readonly name = 'McpRedirectRefused';
}

const MAX_REDIRECTS = 5;

/**
 * `fetch` for a tenant's HTTP MCP server that follows a redirect only to a URL `allowed` admits
 * (the same allowlist the configured URL passed). The SDK's default follows any same-origin
 * redirect, so an allowed `https://host/mcp/` could send the hub to `https://host/admin` (issue
 * 11, defect 9). 307/308 keep the method and body; the others become a GET without a body, as
 * browsers do.
 */
export function allowedRedirectFetch(allowed: (url: string) => boolean, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    let url = new URL(input instanceof Request ? input.url : String(input));
    let req: RequestInit = { ...init, redirect: 'manual' };
    for (let hop = 0; ; hop++) {
      const res = await base(url, req);
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return res;
      const next = new URL(location, url);
      await res.body?.cancel();
      if (hop >= MAX_REDIRECTS) throw new McpRedirectRefused(`MCP server redirected more than ${MAX_REDIRECTS} times`);
      if (!allowed(next.href))
        throw new McpRedirectRefused(`MCP server redirected to ${next.origin}${next.pathname}, which is not allowed on this hub (HUB_MCP_HTTP_URLS)`);
      if (res.status !== 307 && res.status !== 308) req = { ...req, method: 'GET', body: undefined };
      url = next;
    }
  };
}
