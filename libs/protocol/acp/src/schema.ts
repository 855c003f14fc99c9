import { z } from 'zod';
import { AcpRpcError, RPC } from './jsonrpc';

// The params of the agent-side methods the hub accepts, pinned to ACP v0.12.2 and the Harn
// bridge spec. Objects are loose: unknown fields (and every `_meta`) are kept, never rejected,
// as ACP's forward-compatibility rules ask.

/** ACP protocol version the hub speaks (schema v0.12.2 is protocol version 1). */
export const ACP_PROTOCOL_VERSION = 1;

const Meta = z.record(z.string(), z.unknown()).nullish();
const SessionIdField = z.string().min(1);

export const McpServer = z.looseObject({ name: z.string() });
export type McpServer = z.infer<typeof McpServer>;

export const ContentBlock = z.looseObject({ type: z.string() });
export type ContentBlock = z.infer<typeof ContentBlock>;

export const InitializeParams = z.looseObject({
  protocolVersion: z.number().int().nonnegative(),
  clientCapabilities: z.looseObject({}).optional(),
  clientInfo: z.looseObject({}).nullish(),
  _meta: Meta,
});
export const AuthenticateParams = z.looseObject({ methodId: z.string(), _meta: Meta });
export const NewSessionParams = z.looseObject({
  cwd: z.string(),
  mcpServers: z.array(McpServer).default([]),
  _meta: Meta,
});
export const LoadSessionParams = z.looseObject({
  sessionId: SessionIdField,
  cwd: z.string(),
  mcpServers: z.array(McpServer).default([]),
  _meta: Meta,
});
export const ResumeSessionParams = z.looseObject({
  sessionId: SessionIdField,
  cwd: z.string().optional(),
  mcpServers: z.array(McpServer).optional(),
  _meta: Meta,
});
export const ListSessionsParams = z.looseObject({ cwd: z.string().nullish(), cursor: z.string().nullish(), _meta: Meta }).default({});
export const CloseSessionParams = z.looseObject({ sessionId: SessionIdField, _meta: Meta });
export const PromptParams = z.looseObject({ sessionId: SessionIdField, prompt: z.array(ContentBlock).min(1), messageId: z.string().nullish(), _meta: Meta });
export const CancelParams = z.looseObject({ sessionId: SessionIdField, _meta: Meta });
export const SetModeParams = z.looseObject({ sessionId: SessionIdField, modeId: z.string().min(1), _meta: Meta });
export const SetConfigOptionParams = z.looseObject({ sessionId: SessionIdField, configId: z.string(), value: z.unknown(), _meta: Meta });

/** Agent-side request/notification methods of ACP v0.12.2 and their params schema. */
export const AGENT_METHOD_PARAMS = {
  initialize: InitializeParams,
  authenticate: AuthenticateParams,
  'session/new': NewSessionParams,
  'session/load': LoadSessionParams,
  'session/list': ListSessionsParams,
  'session/resume': ResumeSessionParams,
  'session/close': CloseSessionParams,
  'session/prompt': PromptParams,
  'session/cancel': CancelParams,
  'session/set_mode': SetModeParams,
  'session/set_config_option': SetConfigOptionParams,
} as const;
export type AgentMethod = keyof typeof AGENT_METHOD_PARAMS;
export type ParamsOf<M extends AgentMethod> = z.infer<(typeof AGENT_METHOD_PARAMS)[M]>;

export const isAgentMethod = (m: string): m is AgentMethod => Object.prototype.hasOwnProperty.call(AGENT_METHOD_PARAMS, m);

/** A validation failure as one line: `path message; …` (`(root)` for the value itself). */
export const issueText = (e: z.ZodError): string => e.issues.map((i) => `${i.path.join('.') || '(root)'} ${i.message}`).join('; ');

/** Validates params of a known agent method; `null` plus a message on failure (→ -32602). */
export function parseParams<M extends AgentMethod>(method: M, params: unknown): { ok: true; params: ParamsOf<M> } | { ok: false; message: string } {
  const r = (AGENT_METHOD_PARAMS[method] as z.ZodType).safeParse(params);
  if (r.success) return { ok: true, params: r.data as ParamsOf<M> };
  return { ok: false, message: `Invalid params for ${method}: ${issueText(r.error)}` };
}

/** The params of an extension method, checked against its schema; a -32602 naming every issue otherwise. */
export function checkParams<T extends z.ZodType>(schema: T, method: string, params: unknown): z.infer<T> {
  const r = schema.safeParse(params);
  if (!r.success) throw new AcpRpcError(RPC.INVALID_PARAMS, `Invalid params for ${method}: ${issueText(r.error)}`);
  return r.data;
}

/** The plain text of a prompt: text blocks as they are, resources and links by their text or uri. */
export function promptText(blocks: ContentBlock[]): string {
  return blocks
    .map((b) => {
      if (b.type === 'text' && typeof b['text'] === 'string') return b['text'];
      const res = b['resource'] as { uri?: string; text?: string } | undefined;
      if (b.type === 'resource' && res) return res.text ? `<${res.uri ?? 'resource'}>\n${res.text}` : `<${res.uri ?? 'resource'}>`;
      if (b.type === 'resource_link' && typeof b['uri'] === 'string') return `<${b['uri']}>`;
      return '';
    })
    .filter((t) => t.length > 0)
    .join('\n');
}

/** The modes a hub session offers (`session/set_mode`). */
export const SESSION_MODES = [
  { id: 'default', name: 'Default', description: 'Ask before risky tools' },
  { id: 'read_only', name: 'Read only', description: 'Deny every tool that needs approval' },
] as const;
