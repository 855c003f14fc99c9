import type { Request } from 'express';
import { decode, decodeValue, type DecodeResult } from '@hub/protocol-zene';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The request line of `POST /v1/zene`. A JSON body was already parsed by the hub's shared body
 * parser; any other content type (`hub host` sends `application/x-ndjson`) is read here, so an
 * oversized, non-UTF-8 or unparseable line still gets this protocol's `INVALID_REQUEST`.
 */
export async function decodeBody(req: Request, maxBytes: number): Promise<DecodeResult> {
  if (req.body !== undefined) return decodeValue(req.body);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return tooLarge(size, maxBytes);
    chunks.push(chunk);
  }
  let text: string;
  try {
    text = strictUtf8.decode(Buffer.concat(chunks));
  } catch {
    return { ok: false, error: { request_id: 'unknown', session_id: null, message: 'input is not valid UTF-8' } };
  }
  return decode(text, { maxInputBytes: maxBytes });
}

function tooLarge(size: number, maxBytes: number): DecodeResult {
  const message = `payload of more than ${size - 1} bytes exceeds the input size limit of ${maxBytes} bytes`;
  return { ok: false, error: { request_id: 'unknown', session_id: null, message } };
}
