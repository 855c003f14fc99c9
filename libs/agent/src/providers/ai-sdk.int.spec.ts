import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createProvider } from './factory';
import { FakeLlmServer, type FakeReply } from './testing/fake-llm-server';
import { ProviderError, type ModelMessage, type ModelProvider, type ModelStreamPart, type ToolSpec } from './types';

// Real wire, local server: each provider is driven over HTTP against node:http on 127.0.0.1.

const READ_FILE: ToolSpec = {
  name: 'read_file',
  description: 'Read a file',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
};

const CONVERSATION: ModelMessage[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'read notes.txt' },
  { role: 'assistant', content: 'Reading.', toolCalls: [{ toolCallId: 'call_1', name: 'read_file', input: { path: 'notes.txt' } }] },
  { role: 'tool', toolCallId: 'call_1', name: 'read_file', content: 'Buy milk.' },
];

async function collect(provider: ModelProvider, messages = CONVERSATION, signal = new AbortController().signal): Promise<ModelStreamPart[]> {
  const parts: ModelStreamPart[] = [];
  for await (const part of provider.stream({ messages, tools: [READ_FILE], signal })) parts.push(part);
  return parts;
}

async function failure(provider: ModelProvider): Promise<ProviderError> {
  const error = await collect(provider).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ProviderError)) throw new Error(`expected a ProviderError, got ${String(error)}`);
  return error;
}

const text = (parts: ModelStreamPart[]) => parts.flatMap((p) => (p.type === 'text-delta' ? [p.text] : [])).join('');

async function refusedPortUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

const openaiChunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  data: { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1700000000, model: 'm', choices: [{ index: 0, delta, finish_reason: null }], ...extra },
});

const OPENAI_STREAM: FakeReply = {
  kind: 'sse',
  frames: [
    openaiChunk({ role: 'assistant', content: 'Hel' }),
    openaiChunk({ content: 'lo.' }),
    openaiChunk({ tool_calls: [{ index: 0, id: 'call_9', type: 'function', function: { name: 'read_file', arguments: '{"pa' } }] }),
    openaiChunk({ tool_calls: [{ index: 0, function: { arguments: 'th":"data/numbers.csv"}' } }] }),
    {
      data: {
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        created: 1700000000,
        model: 'm',
        choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }],
      },
    },
    {
      data: {
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        created: 1700000000,
        model: 'm',
        choices: [],
        usage: { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 },
      },
    },
    { data: '[DONE]' },
  ],
};

describe('AI SDK providers against a local server', () => {
  const server = new FakeLlmServer();
  let baseUrl: string;

  beforeAll(async () => {
    // The SDK prints compatibility warnings (unknown test model names) to the console.
    globalThis.AI_SDK_LOG_WARNINGS = false;
    baseUrl = await server.start();
  });
  afterAll(() => server.stop());
  beforeEach(() => server.received.splice(0));

  describe('openai-compatible', () => {
    const provider = () => createProvider({ provider: 'openai', model: 'test-model', baseUrl, apiKey: 'sk-test' });

    it('streams text, a tool call and usage', async () => {
      server.reply(OPENAI_STREAM);
      const parts = await collect(provider());
      expect(text(parts)).toBe('Hello.');
      expect(parts.filter((p) => p.type === 'tool-call')).toEqual([
        { type: 'tool-call', toolCallId: 'call_9', name: 'read_file', input: { path: 'data/numbers.csv' } },
      ]);
      expect(parts[parts.length - 1]).toEqual({
        type: 'finish',
        finishReason: 'tool_calls',
        usage: { promptTokens: 42, completionTokens: 7, totalTokens: 49 },
      });
    });

    it('sends the tool schema and the conversation, tool result included, in OpenAI format', async () => {
      server.reply(OPENAI_STREAM);
      await collect(provider());
      const [req] = server.received;
      expect(req?.url).toBe('/v1/chat/completions');
      expect(req?.headers['authorization']).toBe('Bearer sk-test');
      expect(req?.body).toMatchObject({ model: 'test-model', stream: true, stream_options: { include_usage: true } });
      expect(req?.body['tools']).toEqual([
        { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: READ_FILE.inputSchema } },
      ]);
      expect(req?.body['messages']).toEqual([
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'read notes.txt' },
        {
          role: 'assistant',
          content: 'Reading.',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"notes.txt"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'Buy milk.' },
      ]);
    });

    it.each([
      [401, 'PROVIDER_AUTH', false],
      [403, 'PROVIDER_AUTH', false],
      [429, 'PROVIDER_RATE_LIMIT', true],
      [500, 'PROVIDER_DOWN', true],
      [503, 'PROVIDER_DOWN', true],
      [400, 'INTERNAL', false],
    ])('maps HTTP %i to %s (retryable %s), with one attempt only', async (status, code, retryable) => {
      server.reply({ kind: 'json', status, body: { error: { message: `status ${status}`, type: 'x', code: null } } });
      const error = await failure(provider());
      expect([error.code, error.retryable, error.status]).toEqual([code, retryable, status]);
      expect(server.received).toHaveLength(1);
    });

    it('maps a refused connection to PROVIDER_DOWN, retryable', async () => {
      const url = await refusedPortUrl();
      const error = await failure(createProvider({ provider: 'openai', model: 'm', baseUrl: url }));
      expect([error.code, error.retryable]).toEqual(['PROVIDER_DOWN', true]);
    });

    it('rethrows an abort as the abort, not a provider error', async () => {
      server.reply(OPENAI_STREAM);
      const controller = new AbortController();
      const reason = new Error('turn cancelled');
      const parts: ModelStreamPart[] = [];
      const run = (async () => {
        for await (const part of provider().stream({ messages: CONVERSATION, tools: [], signal: controller.signal })) {
          parts.push(part);
          controller.abort(reason);
        }
      })();
      await expect(run).rejects.toBe(reason);
      expect(parts.length).toBeLessThanOrEqual(1);
    });
  });

  describe('anthropic', () => {
    const provider = () => createProvider({ provider: 'anthropic', model: 'claude-test', baseUrl, apiKey: 'ak-test' });
    const ANTHROPIC_STREAM: FakeReply = {
      kind: 'sse',
      frames: [
        {
          event: 'message_start',
          data: {
            type: 'message_start',
            message: {
              id: 'msg_1',
              type: 'message',
              role: 'assistant',
              model: 'claude-test',
              content: [],
              stop_reason: null,
              stop_sequence: null,
              usage: { input_tokens: 31, output_tokens: 1 },
            },
          },
        },
        { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'The user wants ' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'a file.' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } } },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        { event: 'content_block_start', data: { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Let me ' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'check.' } } },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 1 } },
        {
          event: 'content_block_start',
          data: { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: {} } },
        },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"path": "REA' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: 'DME.md"}' } } },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 2 } },
        { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 12 } } },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ],
    };

    it('streams text, a tool call and usage', async () => {
      server.reply(ANTHROPIC_STREAM);
      const parts = await collect(provider());
      expect(text(parts)).toBe('Let me check.');
      const reasoning = parts.flatMap((p) => (p.type === 'reasoning-delta' ? [p.text] : [])).join('');
      expect(reasoning).toBe('The user wants a file.');
      expect(parts.filter((p) => p.type === 'tool-call')).toEqual([
        { type: 'tool-call', toolCallId: 'toolu_1', name: 'read_file', input: { path: 'README.md' } },
      ]);
      expect(parts[parts.length - 1]).toEqual({
        type: 'finish',
        finishReason: 'tool_calls',
        usage: { promptTokens: 31, completionTokens: 12, totalTokens: 43 },
      });
    });

    it('sends system, tools and the tool result in Anthropic format', async () => {
      server.reply(ANTHROPIC_STREAM);
      await collect(provider());
      const [req] = server.received;
      expect(req?.url).toBe('/v1/messages');
      expect(req?.headers['x-api-key']).toBe('ak-test');
      expect(req?.body).toMatchObject({ model: 'claude-test', stream: true });
      expect(req?.body['system']).toEqual([{ type: 'text', text: 'You are terse.' }]);
      expect(req?.body['tools']).toEqual([expect.objectContaining({ name: 'read_file', description: 'Read a file', input_schema: READ_FILE.inputSchema })]);
      expect(req?.body['messages']).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'read notes.txt' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Reading.' },
            { type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'notes.txt' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'Buy milk.' }] },
      ]);
    });

    it.each([
      [401, 'authentication_error', 'PROVIDER_AUTH', false],
      [429, 'rate_limit_error', 'PROVIDER_RATE_LIMIT', true],
      [500, 'api_error', 'PROVIDER_DOWN', true],
      [529, 'overloaded_error', 'PROVIDER_DOWN', true],
    ])('maps HTTP %i (%s) to %s (retryable %s)', async (status, type, code, retryable) => {
      server.reply({ kind: 'json', status, body: { type: 'error', error: { type, message: type } } });
      const error = await failure(provider());
      expect([error.code, error.retryable, error.status]).toEqual([code, retryable, status]);
      expect(server.received).toHaveLength(1);
    });

    it('maps a refused connection to PROVIDER_DOWN', async () => {
      const url = await refusedPortUrl();
      const error = await failure(createProvider({ provider: 'anthropic', model: 'm', baseUrl: url, apiKey: 'k' }));
      expect(error.code).toBe('PROVIDER_DOWN');
    });
  });
});
