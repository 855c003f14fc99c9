// Writes the API types (libs/client/src/generated/openapi.ts, which the console imports) from the hub's OpenAPI document,
// which @nestjs/swagger generates from the controllers (their response schemas are in
// apps/ingress/src/http/api-schemas.ts). The API client is typed from the document instead of
// being written by hand a second time (STYLE.md, "The console").
//
//   node apps/console/scripts/api-types.cjs [HUB_URL]            writes the file
//   node apps/console/scripts/api-types.cjs --check [HUB_URL]    exits 1 when the file is stale
//
// against a running hub (`bin/hub up`; HUB_URL defaults to http://localhost:$PORT, else :8080).
// The review browser spec runs --check against its own hub.
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

// One copy, in the client library (@harness-hub/client, published on its own); the console
// imports its `paths` and `components` from there.
const OUTPUT = join(__dirname, '../../../libs/client/src/generated/openapi.ts');
const OUTPUTS = [OUTPUT];
// The docs' HTTP API page is rendered from the same document, written and checked with the types.
const { renderHttpApi, OUTPUT: API_PAGE } = require('../../../tools/docs/http-api.cjs');
const HEADER = "// Generated from the hub's /openapi.json by apps/console/scripts/api-types.cjs. Do not edit: run it.\n\n";

/** The TypeScript text openapi-typescript makes of `document` (an OpenAPI 3 object). */
async function generate(document) {
  // openapi-typescript's dependencies are ES modules: loaded by Node (require of ESM), not Jest.
  const { default: openapiTS, astToString } = require('openapi-typescript');
  // The document is complete (no external $ref): nothing is fetched.
  const nodes = await openapiTS(document, { alphabetize: true, silent: true });
  return HEADER + astToString(nodes);
}

/** Where `fresh` first differs from `committed`, as a line for a person, or null when equal. */
function firstDifference(committed, fresh) {
  if (committed === fresh) return null;
  const [a, b] = [committed.split('\n'), fresh.split('\n')];
  const i = b.findIndex((line, n) => a[n] !== line);
  const at = i < 0 ? b.length : i;
  return `line ${at + 1}: ${JSON.stringify(a[at] ?? '(end of file)')} should be ${JSON.stringify(b[at] ?? '(end of file)')}`;
}

async function main(args) {
  const check = args.includes('--check');
  const base = args.find((a) => !a.startsWith('--')) ?? `http://localhost:${process.env.PORT ?? 8080}`;
  const res = await fetch(`${base}/openapi.json`);
  if (!res.ok) throw new Error(`GET ${base}/openapi.json: ${res.status}`);
  const document = await res.json();
  const fresh = await generate(document);
  for (const [output, text] of [...OUTPUTS.map((o) => [o, fresh]), [API_PAGE, renderHttpApi(document)]]) {
    if (!check) {
      writeFileSync(output, text);
      process.stderr.write(`wrote ${output}\n`);
      continue;
    }
    const diff = firstDifference(readFileSync(output, 'utf8'), text);
    if (diff) throw new Error(`${output} is stale at ${diff}\nregenerate it: node apps/console/scripts/api-types.cjs ${base}`);
  }
}

module.exports = { generate, OUTPUT, OUTPUTS };

if (require.main === module) {
  main(process.argv.slice(2)).catch((e) => {
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  });
}
