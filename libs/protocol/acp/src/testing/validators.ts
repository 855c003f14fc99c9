import type { ValidateFunction } from 'ajv';
import { STANDARD_SESSION_UPDATES } from '../extensions';

// JSON Schema checks of what the hub emits, shared by the lib's conformance spec and the e2e
// specs: ACP v0.12.2 for standard variants, Harn's session/update profile where it covers one.
// Pure: the caller reads the schema files and brings the Ajv constructors.

interface AjvLike {
  addSchema(schema: object, key?: string): unknown;
  getSchema(ref: string): ValidateFunction | undefined;
  compile(schema: object): ValidateFunction;
}

const errs = (fn: ValidateFunction, doc: unknown): string[] => (fn(doc) ? [] : (fn.errors ?? []).map((e) => `${e.instancePath} ${e.message}`));

/** Validators over the two schemas (`acpSchema`: upstream schema.json; `harnProfile`: conformance/acp-session-update.schema.json). */
export function acpValidatorsFrom(acpSchema: object, harnProfile: object, acpAjv: AjvLike, harnAjv: AjvLike) {
  acpAjv.addSchema(acpSchema, 'acp');
  const def = (name: string) => {
    const fn = acpAjv.getSchema(`acp#/$defs/${name}`);
    if (!fn) throw new Error(`no ACP definition ${name}`);
    return fn;
  };
  const notification = acpAjv.compile({
    type: 'object',
    required: ['jsonrpc', 'method', 'params'],
    properties: { jsonrpc: { const: '2.0' }, method: { const: 'session/update' }, params: { $ref: 'acp#/$defs/SessionNotification' } },
  });
  const harn = harnAjv.compile(harnProfile);
  const harnCovers = new Set(
    JSON.stringify(harnProfile)
      .match(/"const":\s*"([a-z_]+)"/g)
      ?.map((m) => m.replace(/.*"([a-z_]+)"$/, '$1')) ?? [],
  );
  const acp = (doc: unknown) => errs(notification, doc);
  /** Every rule for one emitted notification. */
  const check = (doc: { params: { update: { sessionUpdate: string } & Record<string, unknown> } }): string[] => {
    const kind = doc.params.update.sessionUpdate;
    const out: string[] = [];
    if (STANDARD_SESSION_UPDATES.has(kind)) out.push(...acp(doc));
    else {
      // Extensions: vendor fields only under _meta.harn (Harn #905).
      const extra = Object.keys(doc.params.update).filter((k) => k !== 'sessionUpdate' && k !== '_meta');
      if (extra.length) out.push(`${kind}: vendor fields at the root: ${extra.join(', ')}`);
    }
    if (harnCovers.has(kind)) out.push(...errs(harn, doc).map((e) => `harn: ${e}`));
    return out;
  };
  return {
    acp,
    check,
    def: (name: string, doc: unknown) => errs(def(name), doc),
    permissionRequest: (doc: unknown) => errs(def('RequestPermissionRequest'), doc),
  };
}
