export * from './schema';
export { decode, MAX_CLIENT_MESSAGE_CHARS } from './decode';
export type { DecodeContext, DecodeError, DecodeErrorCode, DecodeResult } from './decode';
export { encode, encodeBatch, snapshot, errorFrame, domainErrorFrame, internalErrorFrame, WIRE_ERROR_CODES } from './encode';
