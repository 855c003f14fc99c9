import { HubClient, HubError } from '@harness-hub/client';

/** One request of an admin command (`hub schedules`, `hub webhooks`): what its flags made. */
export interface ApiRequest {
  method: string;
  path: string;
  body?: unknown;
}

/** An admin command over the HTTP API: its name, usage text, and how its arguments become a request. */
export interface ApiCommand {
  name: string;
  usage: string;
  /** The request the arguments make; throws `usageError` (or parseArgs' ERR_PARSE_ARGS_*) when they make none. */
  requestOf(argv: string[]): ApiRequest;
  usageError: new (message: string) => Error;
  /** Answer fields holding a list, printed one item a line. */
  listKeys: readonly string[];
}

/**
 * Runs `hub <name> ...`: the usage on `help`, exit 2 for a usage error (with the usage), else
 * the request (apiRequest).
 */
export async function runApiCommand(argv: string[], env: { hubUrl: string; apiKey: string | undefined }, c: ApiCommand): Promise<number> {
  let req: ApiRequest;
  try {
    if (argv.length === 0 || argv[0] === 'help' || argv.includes('--help')) return (void process.stdout.write(c.usage), 0);
    if (!env.apiKey) throw new c.usageError(`${c.name} needs HUB_API_KEY`);
    req = c.requestOf(argv);
  } catch (e) {
    if (!(e instanceof c.usageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))) throw e;
    process.stderr.write(`hub: ${(e as Error).message}\n\n${c.usage}`);
    return 2;
  }
  return apiRequest(req, { hubUrl: env.hubUrl, apiKey: env.apiKey }, c.listKeys);
}

/**
 * Sends `req` with the client library (its errors, its retries where safe) and prints the answer
 * as JSON lines: the items of the first of `listKeys` the answer has as a list, else the answer.
 * Exit 0 on success, 1 when the hub refused (its code and detail on stderr), 3 when the hub
 * cannot be reached.
 */
export async function apiRequest(req: ApiRequest, env: { hubUrl: string; apiKey: string }, listKeys: readonly string[]): Promise<number> {
  const hub = new HubClient({ baseUrl: env.hubUrl, apiKey: env.apiKey });
  let body: Record<string, unknown>;
  try {
    body = await hub.request<Record<string, unknown>>(req.method, req.path, { body: req.body });
  } catch (e) {
    if (!(e instanceof HubError)) {
      process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
      return 3;
    }
    process.stderr.write(`hub: HTTP ${e.status}: ${e.code}: ${e.message}\n`);
    return 1;
  }
  const list = listKeys.map((k) => body[k]).find(Array.isArray);
  for (const item of list ?? [body]) process.stdout.write(`${JSON.stringify(item)}\n`);
  return 0;
}
