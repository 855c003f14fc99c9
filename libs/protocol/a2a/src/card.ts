import { A2A_PROTOCOL_VERSION } from './schema';

/** A tool of the agent that runs A2A turns, as the card shows it. */
export interface CardTool {
  name: string;
  description: string;
  /** `ask`: a call waits for an approval (the task turns `input-required`). */
  policy: 'allow' | 'ask' | 'deny';
  executor: string;
}

export interface CardInput {
  /** The JSON-RPC endpoint (`https://hub.example.com/v1/a2a`). */
  url: string;
  /** The hub's version. */
  version: string;
  tools: readonly CardTool[];
  documentationUrl?: string;
}

/** The name of the card's one security scheme: the hub API key as an HTTP bearer token. */
export const BEARER_SCHEME = 'bearer';

/**
 * The agent card (A2A v1.0 `AgentCard`, proto JSON): one JSON-RPC interface at `url` speaking
 * A2A 1.0, streaming, push notifications (delivered from the log) and no extended card, the hub API key as a
 * bearer token, and a skill for chat plus one per tool of the agent that runs the turns.
 */
export function agentCard(input: CardInput): Record<string, unknown> {
  const skills = [
    {
      id: 'chat',
      name: 'Chat',
      description:
        'Answers in text, running the tools below in a hub session (the contextId); a tool that needs approval turns the task input-required until a message on the task (or any hub client) answers it.',
      tags: ['chat'],
      examples: ['hello', 'calculate 2 * 21'],
      inputModes: ['text/plain'],
      outputModes: ['text/plain'],
    },
    ...input.tools.map((t) => ({
      id: `tool.${t.name}`,
      name: t.name,
      description: `${t.description}${t.policy === 'ask' ? ' Needs approval: the task turns input-required.' : t.policy === 'deny' ? ' Denied by policy.' : ''}`,
      tags: ['tool', `policy:${t.policy}`, `executor:${t.executor}`],
      inputModes: ['text/plain'],
      outputModes: ['text/plain', 'application/json'],
    })),
  ];
  return {
    name: 'Harness Hub',
    description:
      'An event-sourced hub for agent runs: every A2A task is a turn in a hub session, recorded in its log and visible, approvable and cancellable from every protocol the hub speaks.',
    supportedInterfaces: [{ url: input.url, protocolBinding: 'JSONRPC', protocolVersion: A2A_PROTOCOL_VERSION }],
    provider: { organization: 'Harness Hub', url: input.url },
    version: input.version,
    ...(input.documentationUrl ? { documentationUrl: input.documentationUrl } : {}),
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: false },
    securitySchemes: {
      [BEARER_SCHEME]: {
        httpAuthSecurityScheme: {
          scheme: 'Bearer',
          bearerFormat: 'Harness Hub API key',
          description: 'Authorization: Bearer <hub API key>; the key decides the tenant and the role.',
        },
      },
    },
    securityRequirements: [{ schemes: { [BEARER_SCHEME]: {} } }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills,
  };
}
