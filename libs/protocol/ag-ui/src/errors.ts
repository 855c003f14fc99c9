/**
 * Why a RunAgentInput is refused before its stream opens. The edge answers each as
 * problem+json (`code`, `detail`, `path`), like every HTTP route of the hub.
 */
export const AG_UI_ERROR_STATUS = {
  /** Not a RunAgentInput of @ag-ui/core 1.0.0, or a value the hub cannot take (ids, an empty prompt). */
  INVALID_INPUT: 400,
  /** `protocolVersion` of another major than the hub's "1.0". */
  UNSUPPORTED_PROTOCOL_VERSION: 400,
  /** Frontend tools in `tools`: the hub's agent runs its own tools, and cannot call back into the page. */
  CLIENT_TOOLS_UNSUPPORTED: 422,
  /** Content the hub's turns cannot carry (images, audio, documents in the prompt). */
  UNSUPPORTED_CONTENT: 422,
} as const;
export type AgUiErrorCode = keyof typeof AG_UI_ERROR_STATUS;

export interface AgUiInputError {
  readonly code: AgUiErrorCode;
  readonly status: number;
  readonly message: string;
  /** The refused field, JSONPath-like (`$.tools[0]`), as the edge's input check names fields. */
  readonly path: string;
}

export function agUiError(code: AgUiErrorCode, message: string, path: string): AgUiInputError {
  return { code, status: AG_UI_ERROR_STATUS[code], message, path };
}
