import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { apiSchemaComponents } from './api-schemas';

/**
 * The OpenAPI document of every HTTP endpoint, generated from the controllers by
 * @nestjs/swagger. Served (no key) at `/openapi.json`, with a browsable page at `/docs`.
 * The WebSocket protocols are described in docs/websocket-protocols.md.
 */
export function openApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Harness Hub')
    .setDescription(
      'One event-sourced hub for AI-agent harness runs. Every /v1 route needs `Authorization: Bearer <API key>`; ' +
        'errors are RFC 9457 problem+json with a documented `code`. WebSocket protocols (transport, ACP, OpenEnv): ' +
        'see docs/websocket-protocols.md in the repository.',
    )
    .setVersion('0.1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An API key (hub_…)' })
    .addSecurityRequirements('bearer')
    .build();
  const document = SwaggerModule.createDocument(app, config);
  // Response bodies are zod schemas (api-schemas.ts), not DTO classes: add them by name.
  document.components = { ...document.components, schemas: { ...document.components?.schemas, ...apiSchemaComponents() } };
  return document;
}

/** Serves the document at /openapi.json and Swagger UI at /docs (both outside the API-key guard). */
export function serveOpenApi(app: INestApplication): OpenAPIObject {
  const document = openApiDocument(app);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', raw: ['json'] });
  return document;
}
