import { parseConfig } from './parse';
import { IngressConfig } from './schemas';

/** A loader of the ingress schema with `HUB_MCP_STDIO_COMMANDS` set to `value` (for specs). */
export const loadSchemaFor = (value: string) => () =>
  parseConfig(IngressConfig, { DATABASE_URL: 'postgresql://h/db', REDIS_URL: 'redis://h:6379', HUB_MCP_STDIO_COMMANDS: value });
