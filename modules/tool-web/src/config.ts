/**
 * The module's config: its JSON Schema, defaults, and the parsed form the
 * tools use. Bad config fails `mount` with a message naming the key.
 */
import {
  AmplifierError,
  errorMessage,
  type JSONSchema,
  type Logger,
  readModuleConfig,
} from '@amplifier/core';

/** Search backends `web_search` can use. */
export type SearchEngine = 'searxng' | 'brave' | 'tavily' | 'custom';

/** The config keys of `tool-web` (plain JSON, snake_case like every Amplifier module config). */
export interface WebConfig {
  /** Overall deadline of one call (connect + headers + body), in seconds. Default 10. */
  timeout?: number;
  /** Characters returned when the call gives no `limit`. Default 204800. */
  default_limit?: number;
  /** Decoded body bytes read at most (decompression bombs stop here). Default 5 MiB. */
  max_bytes?: number;
  /** Decoded bytes written at most by `save_to_file` for text saved as is. Default 100 MiB. */
  max_save_bytes?: number;
  /** Redirects followed at most (each hop re-checked). Default 5. */
  max_redirects?: number;
  /** Largest response head, in bytes. Default 32768. */
  max_header_bytes?: number;
  /** When non-empty, only these domains and their subdomains are fetched. */
  allowed_domains?: string[];
  /** Domains never fetched (with their subdomains). Default []. */
  blocked_domains?: string[];
  /** `host` or `host:port` entries allowed even when they resolve to non-public addresses. */
  allowed_hosts?: string[];
  /** CIDRs whose addresses are allowed even when not public (e.g. `10.1.0.0/16`). */
  allowed_cidrs?: string[];
  /** Reference key: `false` makes `html` the default format. Default true. */
  extract_text?: boolean;
  /** Format of HTML pages when the call gives none. Default `markdown`. */
  default_format?: 'markdown' | 'text' | 'html';
  /** User-Agent header. Default `Amplifier/1.0`. */
  user_agent?: string;
  /** Directory relative `save_to_file` paths resolve against. Default: the `session.working_dir` capability, else the process cwd. */
  working_dir?: string;
  /** Where `save_to_file` may write. Default `[working_dir]`. */
  allowed_write_paths?: string[];
  /** Where `save_to_file` must never write (beats allow). Default []. */
  denied_write_paths?: string[];
  /** The search backend. No default: web_search fails clearly until one is set. `mock` (the reference's default) means none. */
  search_engine?: SearchEngine | 'mock';
  /** Backend URL: the SearXNG base URL, an API endpoint override, or the custom URL template. */
  search_url?: string;
  /** API key of the backend (else `BRAVE_API_KEY`, `TAVILY_API_KEY`, or the variable named by `api_key_env`). */
  api_key?: string;
  /** Environment variable holding the API key (custom backends; overrides the default variable). */
  api_key_env?: string;
  /** Results returned at most. Default 5. */
  max_results?: number;
  /** Custom backend: extra request headers; `{api_key}` is replaced by the key. */
  search_headers?: Record<string, string>;
  /** Custom backend: dot path of the result list in the JSON answer (e.g. `data.items`). Default `results`. */
  search_results_path?: string;
  /** Custom backend: field names of title, url and snippet in each result. */
  search_fields?: { title?: string; url?: string; snippet?: string };
}

const stringList: JSONSchema = { type: 'array', items: { type: 'string' } };

/** JSON Schema of the config (core's `readModuleConfig` warns about unknown keys, refuses misspelt safety keys). */
export const CONFIG_SCHEMA: JSONSchema = {
  type: 'object',
  properties: {
    timeout: { type: 'number', exclusiveMinimum: 0 },
    default_limit: { type: 'integer', minimum: 1 },
    max_bytes: { type: 'integer', minimum: 1 },
    max_save_bytes: { type: 'integer', minimum: 1 },
    max_redirects: { type: 'integer', minimum: 0, maximum: 20 },
    max_header_bytes: { type: 'integer', minimum: 1024 },
    allowed_domains: stringList,
    blocked_domains: stringList,
    allowed_hosts: stringList,
    allowed_cidrs: stringList,
    extract_text: { type: 'boolean' },
    default_format: { enum: ['markdown', 'text', 'html'] },
    user_agent: { type: 'string', minLength: 1 },
    working_dir: { type: 'string', minLength: 1 },
    allowed_write_paths: stringList,
    denied_write_paths: stringList,
    search_engine: { enum: ['searxng', 'brave', 'tavily', 'custom', 'mock'] },
    search_url: { type: 'string', minLength: 1 },
    api_key: { type: 'string' },
    api_key_env: { type: 'string', minLength: 1 },
    max_results: { type: 'integer', minimum: 1, maximum: 50 },
    search_headers: { type: 'object', additionalProperties: { type: 'string' } },
    search_results_path: { type: 'string' },
    search_fields: {
      type: 'object',
      properties: { title: { type: 'string' }, url: { type: 'string' }, snippet: { type: 'string' } },
    },
  },
};

/**
 * The safety-relevant keys (see README): a misspelling of one of them is
 * refused with the reason, never ignored.
 */
export const SAFETY_KEYS: Readonly<Record<string, string>> = {
  allowed_domains: 'ignoring it would let web_fetch reach every domain instead of the listed ones',
  blocked_domains: 'ignoring it would let web_fetch reach domains the config blocks',
  allowed_write_paths: 'ignoring it would let save_to_file write where the config does not allow',
  denied_write_paths: 'ignoring it would let save_to_file write where the config denies',
};

/** The config with every default filled in. */
export interface ResolvedConfig {
  timeoutMs: number;
  defaultLimit: number;
  maxBytes: number;
  maxSaveBytes: number;
  maxRedirects: number;
  maxHeaderBytes: number;
  defaultFormat: 'markdown' | 'text' | 'html';
  userAgent: string;
  raw: WebConfig;
}

/**
 * Read `given` by core's config policy and fill in defaults; throws an
 * AmplifierError (MOUNT_FAILED) naming what to change, or a ConfigRefusedError
 * for a misspelt safety key. Only own properties are read: an inherited key
 * never reaches a setting, and an own `__proto__` key is an unknown key like
 * any other (warned about once through `logger`, ignored).
 */
export function resolveConfig(given: unknown, logger?: Pick<Logger, 'warn'>): ResolvedConfig {
  let config: Record<string, unknown>;
  try {
    config = readModuleConfig(given, {
      module: 'tool-web',
      schema: CONFIG_SCHEMA,
      safety: SAFETY_KEYS,
      logger,
    });
  } catch (error) {
    if (AmplifierError.is(error, 'CONFIG_REFUSED')) throw error;
    throw new AmplifierError('MOUNT_FAILED', errorMessage(error));
  }
  const raw = config as WebConfig;
  return {
    timeoutMs: Math.round((raw.timeout ?? 10) * 1000),
    defaultLimit: raw.default_limit ?? 204_800,
    maxBytes: raw.max_bytes ?? 5 * 1024 * 1024,
    maxSaveBytes: raw.max_save_bytes ?? 100 * 1024 * 1024,
    maxRedirects: raw.max_redirects ?? 5,
    maxHeaderBytes: raw.max_header_bytes ?? 32 * 1024,
    defaultFormat: raw.default_format ?? (raw.extract_text === false ? 'html' : 'markdown'),
    userAgent: raw.user_agent ?? 'Amplifier/1.0',
    raw,
  };
}
