// @hub/agent: the built-in agent's parts — model providers behind one interface (offline by
// default, AI SDK for real ones), tools with their policy, and the session's virtual workspace.

export type {
  ModelFinishReason,
  ModelMessage,
  ModelProvider,
  ModelRequest,
  ModelStreamPart,
  ModelToolCall,
  ModelUsage,
  ProviderErrorCode,
  ToolSpec,
} from './providers/types';
export { ProviderError, isAbortError, isRetryableProviderCode } from './providers/types';
export { OfflineProvider, SLOW_MIN_DELAY_MS, chunkWords, type OfflineProviderOptions } from './providers/offline';
export { ECHO_MAX, LONG_ANSWER_MAX_WORDS, planOfflineReply, type OfflinePlan } from './providers/offline-script';
export { DEFAULT_WRITE_CONTENT } from './providers/offline-intents';
export { AiSdkProvider, toAiMessages, toAiTools, toProviderError } from './providers/ai-sdk';
export { createProvider, OPENAI_DEFAULT_BASE_URL, type ProviderConfig } from './providers/factory';
export { ProviderChoice } from './providers/provider-choice';

export { ToolInputError, type Tool, type ToolContext } from './tools/types';
export { ToolRegistry } from './tools/registry';
export { decidePolicy, type PolicyDecision } from './tools/policy';
export { defineTool, type ToolDefinition } from './tools/define';
export { MAX_CONTENT_BYTES, MAX_PATH_LENGTH, WorkspacePath, FileContent, normalizePath } from './tools/paths';
export { SEED_FILES, seedWorkspace, workspaceFromEvents } from './tools/workspace';
export {
  BUILTIN_TOOLS,
  createBuiltinRegistry,
  calculatorTool,
  deleteFileTool,
  evaluateArithmetic,
  ArithmeticError,
  listFilesTool,
  readFileTool,
  writeFileTool,
} from './tools/builtin';

export * from './runtime';
export * from './rubrics';
export * from './mcp';
export * from './harness';
