export * from './schema';
export { decode, decodeValue, utf8ByteLength, DEFAULT_MAX_INPUT_BYTES } from './decode';
export type { DecodeError, DecodeOptions, DecodeResult } from './decode';
export { ZENE_ERROR_CODES, ZENE_CODE_OF_DOMAIN, RETRYABLE_BY_DEFAULT, UPSTREAM_HTTP_STATUS, zeneCodeOf } from './errors';
export type { ZeneErrorCode } from './errors';
export { ackLine, bridgeReply, errorLine, eventLine, finalLine, rejected, resultLines, usageOf, TIMEOUT_MESSAGE, ZERO_USAGE } from './encode';
export type { LineTiming, ReplyIds, ZeneResult } from './encode';
export { REPLAY_WINDOW_MS, hubSessionIdOf, planRun, requestIdOf, resultOfTurn, turnContextOf, turnIdOf, turnKeyOf, turnOfRequest, usageSoFar } from './turns';
export type { RunPlan, ZeneTurnContext } from './turns';
