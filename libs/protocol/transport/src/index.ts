export * from './schema';
export { decode, MAX_CLIENT_MESSAGE_CHARS } from './decode';
export type { DecodeContext, DecodeError, DecodeErrorCode, DecodeResult } from './decode';
export { encode, snapshot, errorFrame, domainErrorFrame, WIRE_ERROR_CODES } from './encode';
