import { z } from 'zod';
import { foldSessionView, foldTurn, planNextStep, type HubEvent } from '@hub/domain';
import { writeFileTool } from '../tools/builtin';
import { defineTool } from '../tools/define';
import { workspaceFromEvents } from '../tools/workspace';
import { parsePolicy } from '@hub/policy';
import { editedCallVerdict } from './edited-input';

// Issue 13 item 10: an approval granted with rewritten args runs the edited call, checked again.

const call = { toolCallId: 'tc1', name: 'write_file', input: { path: 'a.txt', content: 'model' } };
const u = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
const turn = (resolved: Partial<Extract<HubEvent, { type: 'ApprovalResolved' }>['data']>): HubEvent[] => [
  { type: 'TurnRequested', data: { turnId: 't1', userMessageId: 'u1', prompt: 'write', context: {}, busyPolicy: 'enqueue' } },
  { type: 'TurnStarted', data: { turnId: 't1' } },
  { type: 'MessageStarted', data: { turnId: 't1', messageId: 't1:m', role: 'assistant' } },
  { type: 'ModelCallStarted', data: { turnId: 't1', callId: 't1:c0', step: 0, provider: 'offline', model: 'm', messageCount: 1, toolNames: [] } },
  { type: 'ModelCallCompleted', data: { turnId: 't1', callId: 't1:c0', step: 0, text: '', toolCalls: [call], finishReason: 'tool_calls', usage: u } },
  {
    type: 'ToolCallStarted',
    data: { turnId: 't1', messageId: 't1:m', toolCallId: 'tc1', name: 'write_file', input: call.input, policy: 'ask', executor: 'builtin' },
  },
  {
    type: 'ApprovalRequested',
    data: {
      turnId: 't1',
      approvalId: 'appr_tc1',
      toolCallId: 'tc1',
      toolName: 'write_file',
      input: call.input,
      riskTier: 'medium',
      reason: 'writes',
      deadlineAt: null,
    },
  },
  {
    type: 'ApprovalResolved',
    data: {
      turnId: 't1',
      approvalId: 'appr_tc1',
      toolCallId: 'tc1',
      decision: 'approved',
      by: { type: 'api_key', id: 'k' },
      via: 'acp',
      reason: null,
      ...resolved,
    },
  },
];

describe('the plan after an approval', () => {
  it('runs the edited args, marked as an edit, when the approver rewrote them', () => {
    const edited = { path: 'b.txt', content: 'person' };
    expect(planNextStep(foldTurn(turn({ input: edited }), 't1'), { maxSteps: 8 })).toEqual({
      kind: 'run-tool',
      tool: { ...call, input: edited },
      edited: true,
    });
  });
  it("runs the model's args when the approval carries none (events recorded before edits existed)", () => {
    expect(planNextStep(foldTurn(turn({}), 't1'), { maxSteps: 8 })).toEqual({ kind: 'run-tool', tool: call });
  });
});

describe('editedCallVerdict', () => {
  it('lets a valid edit run', () => {
    expect(editedCallVerdict(writeFileTool, { ...call, input: { path: 'b.txt', content: 'x' } })).toBeNull();
  });
  it("refuses an edit that does not fit the tool's input schema", () => {
    expect(editedCallVerdict(writeFileTool, { ...call, input: { path: 42 } })).toEqual({
      kind: 'invalid',
      message: expect.stringContaining("does not match write_file's input schema"),
    });
  });
  it('applies a policy that denies the call', () => {
    const guarded = defineTool({
      name: 'drop_table',
      description: 'drops',
      input: z.object({ table: z.string() }),
      policy: 'deny',
      riskTier: 'high',
      run: () => 'dropped',
    });
    expect(editedCallVerdict(guarded, { toolCallId: 'x', name: 'drop_table', input: { table: 't' } })).toEqual({
      kind: 'deny',
      message: expect.stringContaining('denied by policy'),
    });
  });
});

describe("an approver's edit under the tenant's policy", () => {
  const parsed = parsePolicy({
    rules: [{ id: 'no-outside', match: { tool: 'write_file', args: [{ kind: 'path', arg: 'path', outsideWorkspace: true }] }, outcome: 'deny' }],
  });
  if (!parsed.ok) throw new Error('policy');
  const loaded = { version: 4, policy: parsed.policy };

  it('is refused by the deny rule that catches the edit, named with its version', () => {
    expect(editedCallVerdict(writeFileTool, { ...call, input: { path: '../../etc/cron.d/x', content: 'x' } }, loaded)).toEqual({
      kind: 'deny',
      message: expect.stringMatching(/denied by rule no-outside: .*path is outside the workspace \[policy v4\]$/),
    });
  });
  it('runs when no deny rule catches it', () => {
    expect(editedCallVerdict(writeFileTool, { ...call, input: { path: 'b.txt', content: 'x' } }, loaded)).toBeNull();
  });
});

describe('the workspace after an edited write', () => {
  it('holds the edited file, not the one the model asked for', () => {
    const done: HubEvent = { type: 'ToolCallCompleted', data: { turnId: 't1', toolCallId: 'tc1', status: 'complete', output: 'wrote b.txt', durationMs: 1 } };
    const opened: HubEvent = { type: 'SessionOpened', data: { sessionId: 's', openedVia: 'acp' } };
    const events = [opened, ...turn({ input: { path: 'b.txt', content: 'person' } }), done];
    // From the whole stream, and from the session view the runner reads (snapshot + tail).
    for (const files of [workspaceFromEvents(events), workspaceFromEvents(foldSessionView(events).fileEvents)]) {
      expect(files.get('b.txt')).toBe('person');
      expect(files.has('a.txt')).toBe(false);
    }
  });
});
