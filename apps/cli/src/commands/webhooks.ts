import { parseArgs } from 'node:util';
import { runApiCommand } from './api-request';

/** `hub webhooks` usage: a client of the HTTP API (`/v1/webhooks`) with HUB_URL and HUB_API_KEY. */
export const WEBHOOKS_USAGE = `usage: hub webhooks <command> (HUB_URL, HUB_API_KEY; admins and operators write, viewers read)

  list                             the tenant's endpoints (one JSON line each)
  create --url URL --events E[,E...] [--description D]
                                   an endpoint; prints its id and whsec_ secret (shown once).
                                   Events: approval.requested, approval.resolved, approval.expired,
                                   turn.completed, turn.failed, session.opened, or *
  get ID | delete ID
  update ID [--url URL] [--events E,...] [--description D] [--enable | --disable]
  rotate ID [--overlap-seconds N]  a new secret; the old one signs too until the overlap ends
  test ID                          send a webhook.test message
  attempts ID [--limit 50]         the delivery log, newest first
  messages ID [--limit 50]         messages and where each stands
  redeliver ID (--message MSG_ID | --since ISO)
  links on|off                     approval links in approval.requested, for the tenant
`;

export class WebhooksUsageError extends Error {}

/** The request one command makes: method, path and body. */
export function webhookRequestOf(argv: string[]): { method: string; path: string; body?: unknown } {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      events: { type: 'string' },
      description: { type: 'string' },
      enable: { type: 'boolean' },
      disable: { type: 'boolean' },
      'overlap-seconds': { type: 'string' },
      limit: { type: 'string' },
      message: { type: 'string' },
      since: { type: 'string' },
    },
  });
  const [cmd, id] = positionals;
  const one = (sub = '') => {
    if (!id) throw new WebhooksUsageError(`${cmd} needs an endpoint ID`);
    return `/v1/webhooks/${encodeURIComponent(id)}${sub}`;
  };
  const events = values.events
    ?.split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const limit = `?limit=${encodeURIComponent(values.limit ?? '50')}`;
  switch (cmd) {
    case 'list':
      return { method: 'GET', path: '/v1/webhooks' };
    case 'create':
      if (!values.url || !events) throw new WebhooksUsageError('create needs --url and --events');
      return { method: 'POST', path: '/v1/webhooks', body: { url: values.url, events, description: values.description } };
    case 'get':
      return { method: 'GET', path: one() };
    case 'delete':
      return { method: 'DELETE', path: one() };
    case 'update': {
      const enabled = values.enable ? true : values.disable ? false : undefined;
      return { method: 'PATCH', path: one(), body: { url: values.url, events, description: values.description, enabled } };
    }
    case 'rotate':
      return {
        method: 'POST',
        path: one('/rotate'),
        body: values['overlap-seconds'] === undefined ? {} : { overlapSeconds: Number(values['overlap-seconds']) },
      };
    case 'test':
      return { method: 'POST', path: one('/test') };
    case 'attempts':
      return { method: 'GET', path: one(`/attempts${limit}`) };
    case 'messages':
      return { method: 'GET', path: one(`/messages${limit}`) };
    case 'redeliver':
      if (!values.message === !values.since) throw new WebhooksUsageError('redeliver needs --message MSG_ID or --since ISO');
      return { method: 'POST', path: one('/redeliver'), body: values.message ? { messageId: values.message } : { since: values.since } };
    case 'links':
      if (id !== 'on' && id !== 'off') throw new WebhooksUsageError('links needs on or off');
      return { method: 'PUT', path: '/v1/webhook-settings', body: { approvalLinks: id === 'on' } };
    default:
      throw new WebhooksUsageError(cmd ? `unknown webhooks command: ${cmd}` : 'webhooks needs a command');
  }
}

/**
 * `hub webhooks ...`: prints the API's answer as JSON lines (a list one item a line); exit 0 on
 * success, 1 when the hub refused (its problem+json on stderr), 2 for a usage error, 3 when the
 * hub cannot be reached.
 */
export async function webhooks(argv: string[], env: { hubUrl: string; apiKey: string | undefined }): Promise<number> {
  return runApiCommand(argv, env, {
    name: 'webhooks',
    usage: WEBHOOKS_USAGE,
    requestOf: webhookRequestOf,
    usageError: WebhooksUsageError,
    listKeys: ['endpoints', 'attempts', 'messages'],
  });
}
