import { HubCommand } from '@hub/domain';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { decode } from './decode';
import { encodeError, encodeReply, EMITTED_ACTION_TYPES, SIDE_EFFECT_ACTION_TYPES, type ReplyView, type TurnResult } from './encode';
import { ResponseMessage } from './schema';

// Walks every fixture: the upstream ones (SynSwarm/OpenHarness examples and its JSON Schema)
// and ours (requests of our profile, golden replies, invalid requests). Every reply this lib
// writes is checked with a real JSON Schema validator against the upstream schema.

// src → openharness → protocol → libs → repo → the shared folder beside the repo.
const UPSTREAM = path.resolve(__dirname, '../../../../../shared/fixtures/openharness');
const OWN = path.resolve(__dirname, 'fixtures');
const read = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));
const jsonFiles = (dir: string, pattern: RegExp) =>
  readdirSync(dir)
    .filter((f) => pattern.test(f))
    .map((f) => [f, path.join(dir, f)] as const);

const schema = read(path.join(UPSTREAM, 'openharness-v1.draft.schema.json')) as { $id: string };
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validateMessage = ajv.compile(schema);
const validateResponse = (body: unknown) => {
  const v = ajv.getSchema(`${schema.$id}#/$defs/responseMessage`);
  if (!v) throw new Error('upstream schema has no responseMessage');
  const ok = v(body) && validateMessage(body);
  return { ok, errors: JSON.stringify([v.errors, validateMessage.errors]) };
};
const validateRequest = (body: unknown) => {
  const v = ajv.getSchema(`${schema.$id}#/$defs/requestMessage`);
  if (!v) throw new Error('upstream schema has no requestMessage');
  return { ok: v(body) && validateMessage(body), errors: JSON.stringify([v.errors, validateMessage.errors]) };
};

let ids = 0;
const ctxFor = (body: unknown) => {
  const tenant = (body as { request?: { auth?: { tenant_id?: string } } }).request?.auth?.tenant_id;
  return { tenantId: tenant ?? 'tenant-1', newId: () => `generated-${++ids}` };
};

describe.each(jsonFiles(UPSTREAM, /__request\.json$/))('upstream request %s', (_name, file) => {
  const body = read(file) as { request: { context: Record<string, unknown> } };

  it('is valid against the upstream schema and decodes into a SubmitTurn (by a key of its tenant)', () => {
    expect(validateRequest(body)).toEqual(expect.objectContaining({ ok: true }));
    const result = decode(body, ctxFor(body));
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
    expect(result.request.action.kind).toBe('submit');
    if (result.request.action.kind !== 'submit') return;
    const command = result.request.action.command;
    expect(HubCommand.parse(command)).toEqual(command);
    expect(command.prompt).toBe(body.request.context['user_intent']);
    for (const key of ['task_hint', 'shell', 'attachments'] as const) {
      expect(command.context[key]).toEqual(body.request.context[key]);
    }
  });

  it('is refused for a key of another tenant', () => {
    const result = decode(body, { tenantId: 'a-different-tenant', newId: () => 'x' });
    expect(result.ok ? 'ok' : result.error.code).toBe('forbidden');
  });
});

describe.each(jsonFiles(UPSTREAM, /__response.*\.json$/))('upstream response %s', (_name, file) => {
  it('is valid against the upstream schema and our ResponseMessage, and round-trips', () => {
    const body = read(file);
    expect(validateResponse(body)).toEqual(expect.objectContaining({ ok: true }));
    const parsed = ResponseMessage.parse(body);
    expect(parsed).toEqual(body);
    expect(ResponseMessage.parse(JSON.parse(JSON.stringify(parsed)))).toEqual(parsed);
  });
});

describe.each(jsonFiles(path.join(OWN, 'requests'), /\.json$/))('our request %s', (name, file) => {
  it('is valid against the upstream schema and decodes into the action its name says', () => {
    const body = read(file);
    expect(validateRequest(body)).toEqual(expect.objectContaining({ ok: true }));
    const result = decode(body, ctxFor(body));
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
    expect(result.request.action.kind).toBe(name.split('--')[0]);
    const action = result.request.action;
    if (action.kind !== 'collect') expect(HubCommand.parse(action.command)).toEqual(action.command);
  });
});

describe.each(jsonFiles(path.join(OWN, 'replies'), /\.json$/))('our reply %s', (_name, file) => {
  const golden = read(file) as { result: TurnResult; view: ReplyView; reply: { httpStatus: number; body: unknown } };

  it('is what encodeReply writes, and is valid against the upstream schema', () => {
    const reply = encodeReply(golden.result, golden.view);
    expect(reply).toEqual(golden.reply);
    expect(validateResponse(reply.body)).toEqual(expect.objectContaining({ ok: true }));
  });

  it('emits only known or namespaced action types, with a fallback where there are side effects', () => {
    const directives = encodeReply(golden.result, golden.view).body.response.action_directives ?? [];
    for (const d of directives) {
      expect(EMITTED_ACTION_TYPES).toContain(d.action_type);
      if (SIDE_EFFECT_ACTION_TYPES.includes(d.action_type)) expect(typeof d.payload?.['fallback_message']).toBe('string');
    }
  });
});

describe('invalid requests', () => {
  const cases = read(path.join(OWN, 'invalid-requests.json')) as { name: string; body: unknown; code: string; status: number }[];
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const result = decode(c.body, { tenantId: 'tenant-1', newId: () => 'generated' });
    if (result.ok) throw new Error('decoded');
    expect([result.error.code, result.error.httpStatus]).toEqual([c.code, c.status]);
    const reply = encodeError(result.error, result.echo);
    expect(reply.httpStatus).toBe(c.status);
    expect(validateResponse(reply.body)).toEqual(expect.objectContaining({ ok: true }));
  });
});

describe('error replies look like the upstream examples', () => {
  it('protocol_version_unsupported has the keys of minimal__response-protocol-unsupported.json', () => {
    const upstream = read(path.join(UPSTREAM, 'minimal__response-protocol-unsupported.json')) as ResponseMessage;
    const result = decode({ protocol_version: '0.9.0', request_id: 'req_old_proto_001', request: {} }, ctxFor({}));
    if (result.ok) throw new Error('decoded');
    const ours = encodeError(result.error, result.echo).body;
    expect(Object.keys(ours).sort()).toEqual(Object.keys(upstream).sort());
    expect(ours.response.error).toEqual(expect.objectContaining({ code: upstream.response.error?.code, retryable: false }));
    expect(ours.request_id).toBe('req_old_proto_001');
  });
});

describe('the validator', () => {
  it('rejects replies the upstream schema does not allow (so the checks above can fail)', () => {
    const good = read(path.join(UPSTREAM, 'minimal__response.json')) as ResponseMessage;
    expect(validateResponse(good).ok).toBe(true);
    const badTier = { ...good, response: { status: 'success', action_directives: [{ action_type: 'render_message', risk_tier: 'medium' }] } };
    const noStatus = { ...good, response: {} };
    const numericVersion = { ...good, protocol_version: 1 };
    for (const bad of [badTier, noStatus, numericVersion]) expect(validateResponse(bad).ok).toBe(false);
  });
});
