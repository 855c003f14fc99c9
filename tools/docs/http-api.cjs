// The HTTP API reference page (docs/reference/http-api.md), rendered from the hub's OpenAPI
// document. apps/console/scripts/api-types.cjs writes it (and checks it with --check) together
// with the console's API types, from the same /openapi.json: one command after a route change.
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const OUTPUT = join(__dirname, '../../docs/reference/http-api.md');

const INTRO = `<!-- Generated from the hub's /openapi.json by apps/console/scripts/api-types.cjs (tools/docs/http-api.cjs). Do not edit: run it. -->

# HTTP API

Ingress serves the OpenAPI document of every HTTP endpoint at \`/openapi.json\` (generated from the
controllers by \`@nestjs/swagger\`; \`openapi.int.spec.ts\` fails when a route Nest registered is
missing from it) and a browsable page at \`/docs\`, both without a key. This page is rendered from
that document. The WebSocket protocols are described in [WebSocket protocols](../websocket-protocols.md);
what each endpoint means for a session is in [Sessions over HTTP](../protocols/http.md) and each
protocol's page.
`;

/** Table-cell text: one line, pipes escaped, and outside code no `<` or `{{` a page compiler could take for markup. */
function cell(text) {
  return String(text ?? '')
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .split('`')
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/</g, '&lt;').replace(/\{\{/g, '{ {')))
    .join('`');
}

/** A schema as a short type: `SessionView[]`, `"a" \| "b"`, `integer (1–200)`; a named schema links to its section. */
function typeOf(schema) {
  if (!schema) return 'any';
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop();
    return `[${name}](#${name.toLowerCase()})`;
  }
  const nullable = schema.nullable ? ' \\| null' : '';
  for (const key of ['oneOf', 'anyOf']) if (schema[key]) return schema[key].map(typeOf).join(' \\| ') + nullable;
  if (schema.allOf) return schema.allOf.map(typeOf).join(' & ') + nullable;
  if (schema.enum) return schema.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' \\| ') + nullable;
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\`` + nullable;
  if (schema.type === 'array') return `${typeOf(schema.items)}[]` + nullable;
  const range = [schema.minimum, schema.maximum].some((v) => v !== undefined) ? ` (${schema.minimum ?? ''}–${schema.maximum ?? ''})` : '';
  return `${schema.type ?? 'object'}${range}` + nullable;
}

/** The fields of an object schema as table rows (nothing for a schema without properties). */
function fieldRows(schema) {
  const required = new Set(schema?.required ?? []);
  return Object.entries(schema?.properties ?? {}).map(
    ([name, s]) => `| \`${name}\` | ${typeOf(s)} | ${required.has(name) ? 'yes' : ''} | ${cell(s.description)} |`,
  );
}

function operation(path, method, op) {
  const lines = [`### \`${method.toUpperCase()} ${path}\``, '', cell(op.summary) + (op.security && op.security.length === 0 ? ' (no key)' : '')];
  if (op.description) lines.push('', cell(op.description));
  const params = op.parameters ?? [];
  if (params.length > 0) {
    lines.push('', '| Parameter | In | Type | Required | Description |', '|---|---|---|---|---|');
    for (const p of params)
      lines.push(
        `| \`${p.name}\` | ${p.in} | ${typeOf(p.schema)}${p.schema?.default !== undefined ? `, default \`${JSON.stringify(p.schema.default)}\`` : ''} | ${p.required ? 'yes' : ''} | ${cell(p.description)} |`,
      );
  }
  const body = Object.entries(op.requestBody?.content ?? {});
  for (const [type, { schema }] of body) {
    const rows = schema?.$ref ? [] : fieldRows(schema);
    lines.push('', `Request body (\`${type}\`): ${rows.length > 0 ? '' : typeOf(schema)}`);
    if (rows.length > 0) lines.push('', '| Field | Type | Required | Description |', '|---|---|---|---|', ...rows);
  }
  lines.push('', '| Status | Meaning | Body |', '|---|---|---|');
  for (const [status, r] of Object.entries(op.responses ?? {})) {
    const content = Object.entries(r.content ?? {}).map(([type, { schema }]) => `\`${type}\`${schema ? ` ${typeOf(schema)}` : ''}`);
    const headers = Object.keys(r.headers ?? {}).map((h) => `\`${h}\` header`);
    lines.push(`| ${status} | ${cell(r.description)} | ${[...content, ...headers].join(', ')} |`);
  }
  return lines.join('\n');
}

/** The page for `document` (an OpenAPI 3 object): operations grouped by tag, then the named schemas. */
function renderHttpApi(document) {
  const groups = new Map();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      const tag = op.tags?.[0] ?? 'other';
      if (!groups.has(tag)) groups.set(tag, []);
      groups.get(tag).push(operation(path, method, op));
    }
  }
  const parts = [INTRO];
  if (document.info?.description) parts.push(cell(document.info.description));
  for (const tag of [...groups.keys()].sort()) parts.push(`## ${tag}`, ...groups.get(tag));
  const schemas = Object.entries(document.components?.schemas ?? {});
  if (schemas.length > 0) {
    parts.push('## Schemas');
    for (const [name, schema] of schemas) {
      const rows = fieldRows(schema);
      parts.push(
        [
          `### ${name}`,
          '',
          ...(schema.description ? [cell(schema.description), ''] : []),
          ...(rows.length > 0 ? ['| Field | Type | Required | Description |', '|---|---|---|---|', ...rows] : [typeOf(schema)]),
        ].join('\n'),
      );
    }
  }
  return parts.join('\n\n') + '\n';
}

module.exports = { renderHttpApi, OUTPUT };

// `node tools/docs/http-api.cjs DOCUMENT.json` renders a saved document (api-types.cjs renders the live one).
if (require.main === module) {
  writeFileSync(OUTPUT, renderHttpApi(JSON.parse(readFileSync(process.argv[2], 'utf8'))));
  process.stderr.write(`wrote ${OUTPUT}\n`);
}
