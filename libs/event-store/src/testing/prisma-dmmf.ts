import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

// Reads schema.prisma the way Prisma does: through get_dmmf of the prisma-schema WebAssembly
// module that ships with the `prisma` CLI. The glue below is the part of wasm-bindgen's
// generated JS this one function needs (strings in, a string or a thrown error out).

const REPO = resolve(__dirname, '../../../..');
export const SCHEMA_PATH = resolve(REPO, 'prisma/schema.prisma');
const WASM_PATH = resolve(REPO, 'node_modules/prisma/build/prisma_schema_build_bg.wasm');

export interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: 'scalar' | 'object' | 'enum' | 'unsupported';
  isRequired: boolean;
  /** A list (`String[]`): a Postgres array, which pg_type names with a leading underscore (`_text`). */
  isList?: boolean;
  type: string;
  nativeType?: [string, string[]] | null;
  relationFromFields?: string[];
  relationToFields?: string[];
}

export interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
}

export interface DmmfIndex {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  dbName?: string | null;
  fields: { name: string }[];
}

export interface Datamodel {
  models: DmmfModel[];
  indexes: DmmfIndex[];
}

// lib "es2023" without "dom" has no WebAssembly typings; these are the few members used.
interface WasmTable {
  grow(delta: number): number;
  get(index: number): unknown;
  set(index: number, value: unknown): void;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}
const Wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

interface SchemaWasm {
  memory: { buffer: ArrayBuffer };
  __wbindgen_externrefs: WasmTable;
  __wbindgen_start(): void;
  __wbindgen_malloc(len: number, align: number): number;
  __wbindgen_realloc(ptr: number, oldLen: number, newLen: number, align: number): number;
  __wbindgen_free(ptr: number, len: number, align: number): void;
  __externref_table_dealloc(idx: number): void;
  get_dmmf(ptr: number, len: number): [number, number, number, number];
}

function loadWasm(): SchemaWasm {
  const ref: { w?: SchemaWasm } = {};
  const exports = (): SchemaWasm => {
    if (!ref.w) throw new Error('prisma-schema-wasm called back before it was instantiated');
    return ref.w;
  };
  const text = (p: number, l: number): string => new TextDecoder().decode(new Uint8Array(exports().memory.buffer, p, l));
  const imports = {
    __wbindgen_placeholder__: {
      __wbg_set_message_f22ac4a6869ee695: (p: number, l: number) => {
        throw new Error(`prisma-schema-wasm panicked: ${text(p, l)}`);
      },
      __wbg_Error_e83987f665cf5504: (p: number, l: number) => new Error(text(p, l)),
      __wbg___wbindgen_throw_b855445ff6a94295: (p: number, l: number) => {
        throw new Error(text(p, l));
      },
      __wbindgen_init_externref_table: () => {
        const table = exports().__wbindgen_externrefs;
        const offset = table.grow(4);
        table.set(0, undefined);
        [undefined, null, true, false].forEach((v, i) => table.set(offset + i, v));
      },
    },
  };
  const instance = new Wasm.Instance(new Wasm.Module(readFileSync(WASM_PATH)), imports);
  ref.w = instance.exports as SchemaWasm;
  ref.w.__wbindgen_start();
  return ref.w;
}

/** Prisma's DMMF datamodel of a schema, plus `Unsupported(...)` fields, which the DMMF leaves out. */
export function readDatamodel(schema = readFileSync(SCHEMA_PATH, 'utf8')): Datamodel {
  const w = loadWasm();
  const input = new TextEncoder().encode(JSON.stringify({ prismaSchema: schema }));
  const ptr = w.__wbindgen_malloc(input.length, 1);
  new Uint8Array(w.memory.buffer, ptr, input.length).set(input);
  const [outPtr, outLen, errIdx, isErr] = w.get_dmmf(ptr, input.length);
  if (isErr) {
    const error: unknown = w.__wbindgen_externrefs.get(errIdx);
    w.__externref_table_dealloc(errIdx);
    throw error instanceof Error ? error : new Error(String(error));
  }
  const json = new TextDecoder().decode(new Uint8Array(w.memory.buffer, outPtr, outLen));
  w.__wbindgen_free(outPtr, outLen, 1);
  const datamodel = (JSON.parse(json) as { datamodel: Datamodel }).datamodel;
  addUnsupportedFields(datamodel, schema);
  return datamodel;
}

const MODEL_BLOCK = /^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm;
const UNSUPPORTED_FIELD = /^\s*(\w+)\s+Unsupported\("([^"]+)"\)(\?)?(.*)$/gm;

function addUnsupportedFields(datamodel: Datamodel, schema: string): void {
  for (const [, modelName, body] of schema.matchAll(MODEL_BLOCK)) {
    const model = datamodel.models.find((m) => m.name === modelName);
    if (!model) throw new Error(`model ${modelName} missing from the DMMF`);
    for (const [, name, type, optional, rest] of body.matchAll(UNSUPPORTED_FIELD)) {
      const dbName = /@map\("([^"]+)"\)/.exec(rest)?.[1] ?? null;
      model.fields.push({ name, dbName, kind: 'unsupported', isRequired: optional !== '?', type });
    }
  }
}
