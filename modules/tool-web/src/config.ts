/**
 * The module's config: its JSON Schema, defaults, and the parsed form the
 * tools use. Bad config fails `mount` with a message naming the key.
 */
import type { Logger } from '@amplifier/core';
import { defineModuleConfig, type FromSchema } from '@amplifier/schema';
import { createPolicy, type NetworkPolicy } from './ssrf.js';

/** Search backends `web_search` can use. */
export type SearchEngine = 'searxng' | 'brave' | 'tavily' | 'custom';

/**
 * JSON Schema of the config: the one source of `WebConfig` (`FromSchema`).
 * Unknown keys are warned about and ignored, misspelt safety keys refused.
 */
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    /** Overall deadline of one call (connect + headers + body), in seconds. Default 10. */
    timeout: { type: 'number', exclusiveMinimum: 0 },
    /** Characters returned when the call gives no `limit`. Default 204800. */
    default_limit: { type: 'integer', minimum: 1 },
    /** Decoded body bytes read at most (decompression bombs stop here). Default 5 MiB. */
    max_bytes: { type: 'integer', minimum: 1 },
    /** Decoded bytes written at most by `save_to_file` for text saved as is. Default 100 MiB. */
    max_save_bytes: { type: 'integer', minimum: 1 },
    /** Redirects followed at most (each hop re-checked). Default 5. */
    max_redirects: { type: 'integer', minimum: 0, maximum: 20 },
    /** Largest response head, in bytes. Default 32768. */
    max_header_bytes: { type: 'integer', minimum: 1024 },
    /** When non-empty, only these domains and their subdomains are fetched. */
    allowed_domains: { type: 'array', items: { type: 'string' } },
    /** Domains never fetched (with their subdomains). Default []. */
    blocked_domains: { type: 'array', items: { type: 'string' } },
    /** `host` or `host:port` entries allowed even when they resolve to non-public addresses. */
    allowed_hosts: { type: 'array', items: { type: 'string' } },
    /** CIDRs whose addresses are allowed even when not public (e.g. `10.1.0.0/16`). */
    allowed_cidrs: { type: 'array', items: { type: 'string' } },
    /** Reference key: `false` makes `html` the default format. Default true. */
    extract_text: { type: 'boolean' },
    /** Format of HTML pages when the call gives none. Default `markdown`. */
    default_format: { enum: ['markdown', 'text', 'html'] },
    /** User-Agent header. Default `Amplifier/1.0`. */
    user_agent: { type: 'string', minLength: 1 },
    /** Directory relative `save_to_file` paths resolve against. Default: the `session.working_dir` capability, else the process cwd. */
    working_dir: { type: 'string', minLength: 1 },
    /** Where `save_to_file` may write. Default `[working_dir]`. */
    allowed_write_paths: { type: 'array', items: { type: 'string' } },
    /** Where `save_to_file` must never write (beats allow). Default []. */
    denied_write_paths: { type: 'array', items: { type: 'string' } },
    /** The search backend. No default: web_search fails clearly until one is set. `mock` (the reference's default) means none. */
    search_engine: { enum: ['searxng', 'brave', 'tavily', 'custom', 'mock'] },
    /** Backend URL: the SearXNG base URL, an API endpoint override, or the custom URL template. */
    search_url: { type: 'string', minLength: 1 },
    /** API key of the backend (else `BRAVE_API_KEY`, `TAVILY_API_KEY`, or the variable named by `api_key_env`). */
    api_key: { type: 'string' },
    /** Environment variable holding the API key (custom backends; overrides the default variable). */
    api_key_env: { type: 'string', minLength: 1 },
    /** Results returned at most. Default 5. */
    max_results: { type: 'integer', minimum: 1, maximum: 50 },
    /** Custom backend: extra request headers; `{api_key}` is replaced by the key. */
    search_headers: { type: 'object', additionalProperties: { type: 'string' } },
    /** Custom backend: dot path of the result list in the JSON answer (e.g. `data.items`). Default `results`. */
    search_results_path: { type: 'string' },
    /** Custom backend: field names of title, url and snippet in each result. */
    search_fields: {
      type: 'object',
      properties: { title: { type: 'string' }, url: { type: 'string' }, snippet: { type: 'string' } },
    },
  },
} as const;

/** The config keys of `tool-web` (plain JSON, snake_case like every Amplifier module config). */
export type WebConfig = FromSchema<typeof CONFIG_SCHEMA>;

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

/** The config's reader: the policy, and `MOUNT_FAILED` for a bad key or list entry. */
const WEB_CONFIG = defineModuleConfig({ module: 'tool-web', schema: CONFIG_SCHEMA, safety: SAFETY_KEYS });

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
  /** The allow and block lists, parsed (`createPolicy`). */
  policy: NetworkPolicy;
  raw: WebConfig;
}

/**
 * Read `given` by the config policy (`@amplifier/schema`) and fill in defaults; throws an
 * AmplifierError (MOUNT_FAILED) naming what to change (a bad key, or a list entry
 * that is not a domain, host or CIDR), or a ConfigRefusedError
 * for a misspelt safety key. Only own properties are read: an inherited key
 * never reaches a setting, and an own `__proto__` key is an unknown key like
 * any other (warned about once through `logger`, ignored).
 */
export function resolveConfig(given: unknown, logger?: Pick<Logger, 'warn'>): ResolvedConfig {
  return WEB_CONFIG.resolve(given, logger, (raw) => ({
    timeoutMs: Math.round((raw.timeout ?? 10) * 1000),
    defaultLimit: raw.default_limit ?? 204_800,
    maxBytes: raw.max_bytes ?? 5 * 1024 * 1024,
    maxSaveBytes: raw.max_save_bytes ?? 100 * 1024 * 1024,
    maxRedirects: raw.max_redirects ?? 5,
    maxHeaderBytes: raw.max_header_bytes ?? 32 * 1024,
    defaultFormat: raw.default_format ?? (raw.extract_text === false ? 'html' : 'markdown'),
    userAgent: raw.user_agent ?? 'Amplifier/1.0',
    policy: createPolicy(raw),
    raw,
  }));
}
