/**
 * The `web_fetch` tool: a GET through the guarded dispatcher with redirects
 * followed (and re-checked) one hop at a time, one overall deadline, limits
 * that stop reading, charset-aware decoding, HTML to Markdown or text, JSON
 * pretty-printed, character paging, and `save_to_file` under the write policy.
 */
import { STATUS_CODES } from 'node:http';
import path from 'node:path';
import { TextDecoder } from 'node:util';
import type {
  HookRegistry,
  JSONSchema,
  ResourceKey,
  Tool,
  ToolCallOptions,
  ToolResult,
} from '@amplifier/core';
import { errorMessage, events } from '@amplifier/core';
import type { Dispatcher } from 'undici';
import {
  type ContentKind,
  callSignal,
  contentKind,
  createDecoder,
  looksBinary,
  parseContentType,
  readBody,
} from './body.js';
import type { ResolvedConfig } from './config.js';
import { htmlToMarkdown, htmlToText } from './html.js';
import { blockedReason, discard, type HttpResponse, header, RedirectBlocked, request } from './request.js';
import { checkSavePath, openSave, type SaveFile, type SaveTarget, type WritePolicy } from './save.js';
import { type BlockedError, checkUrl, type NetworkPolicy } from './ssrf.js';

/** What web_fetch needs from its mount. */
export interface FetchContext {
  config: ResolvedConfig;
  policy: NetworkPolicy;
  dispatcher: Dispatcher;
  writePolicy: WritePolicy;
  hooks?: HookRegistry;
  isClosed(): boolean;
}

type Format = 'markdown' | 'text' | 'html';

const PREVIEW_CHARS = 1000;

class BinaryContent extends Error {}

/** A failed result whose output repeats the message (what the model reads). */
function fail(message: string, type?: string): ToolResult {
  return { success: false, output: message, error: type ? { message, type } : { message } };
}

/** Move a page boundary back by one when it would split a surrogate pair. */
function boundary(text: string, index: number): number {
  if (index <= 0 || index >= text.length) return index;
  const before = text.charCodeAt(index - 1);
  const at = text.charCodeAt(index);
  return before >= 0xd800 && before <= 0xdbff && at >= 0xdc00 && at <= 0xdfff ? index - 1 : index;
}

/** The characters `[offset, offset + limit)` of `text`, never splitting a surrogate pair. */
export function pageOf(text: string, offset: number, limit: number): { start: number; end: number } {
  const start = boundary(text, Math.min(offset, text.length));
  let end = boundary(text, Math.min(offset + limit, text.length));
  if (end <= start && start < text.length) end = Math.min(text.length, start + 2);
  return { start, end };
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** Turn the decoded body into the content returned for `kind` and `format`. */
function convert(kind: ContentKind, format: Format, text: string, complete: boolean, url: string) {
  if (kind === 'html' && format === 'markdown') return htmlToMarkdown(text, url);
  if (kind === 'html' && format === 'text') return htmlToText(text, url);
  if (kind === 'json' && complete) return { title: '', content: prettyJson(text) };
  return { title: '', content: text };
}

async function fetchUrl(
  ctx: FetchContext,
  input: Record<string, unknown>,
  signal: AbortSignal,
): Promise<ToolResult> {
  const rawUrl = String(input.url).trim();
  let url: URL;
  try {
    url = checkUrl(rawUrl, ctx.policy);
  } catch (error) {
    return fail(`Invalid or blocked URL: ${rawUrl} (${(error as BlockedError).reason})`);
  }
  const offset = (input.offset as number | undefined) ?? 0;
  const limit = (input.limit as number | undefined) ?? ctx.config.defaultLimit;
  const format = (input.format as Format | undefined) ?? ctx.config.defaultFormat;
  const saveTo = input.save_to_file as string | undefined;
  const target = saveTo === undefined ? undefined : await checkSavePath(ctx.writePolicy, saveTo);
  if (typeof target === 'string') return fail(target);

  const res = await request(
    {
      dispatcher: ctx.dispatcher,
      policy: ctx.policy,
      userAgent: ctx.config.userAgent,
      maxRedirects: ctx.config.maxRedirects,
    },
    url,
    signal,
  );
  try {
    return await respond(ctx, res, { rawUrl, url, offset, limit, format, saveTo, target }, signal);
  } catch (error) {
    discard(res.body); // nothing may keep the connection busy after a failure
    throw error;
  }
}

/** What the call asked for, after validation. */
interface FetchCall {
  rawUrl: string;
  url: URL;
  offset: number;
  limit: number;
  format: Format;
  saveTo: string | undefined;
  target: SaveTarget | undefined;
}

/** Turn the response into the tool result: status and type checks, reading, conversion, paging or saving. */
async function respond(
  ctx: FetchContext,
  res: HttpResponse,
  call: FetchCall,
  signal: AbortSignal,
): Promise<ToolResult> {
  const { rawUrl, url, offset, limit, format, saveTo, target } = call;
  const finalUrl = res.url.href;
  const contentType = header(res.headers, 'content-type') ?? '';
  const { type, charset } = parseContentType(contentType);
  const base = {
    url: rawUrl,
    ...(finalUrl !== url.href ? { final_url: finalUrl } : {}),
    status: res.status,
    content_type: contentType,
  };
  if (res.status < 200 || res.status > 299) {
    discard(res.body);
    return fail(`HTTP ${res.status}: ${STATUS_CODES[res.status] ?? 'Unknown'}`);
  }
  const declared = contentKind(type);
  const length = header(res.headers, 'content-length');
  const describe = `${type || 'no Content-Type'}${length ? `, ${length} bytes` : ''}`;
  if (declared === 'binary') {
    discard(res.body);
    return fail(`Cannot fetch ${finalUrl}: binary content (${describe}); web_fetch returns text only`);
  }
  let kind: ContentKind = declared ?? 'text';
  const utf16 = /^utf-?16/i.test(charset ?? '');
  const decoderFor = (head: Uint8Array): TextDecoder => {
    const bom16 = (head[0] === 0xfe && head[1] === 0xff) || (head[0] === 0xff && head[1] === 0xfe);
    if (!utf16 && !bom16 && looksBinary(head)) throw new BinaryContent();
    if (declared === undefined && /^\s*</.test(new TextDecoder('latin1').decode(head.subarray(0, 64)))) {
      kind = /<html|<!doctype html/i.test(new TextDecoder('latin1').decode(head)) ? 'html' : 'text';
    }
    return createDecoder(head, charset, kind === 'html');
  };
  // HTML (unless returned raw) and JSON are converted whole; other text can stop at the page.
  const whole = (declared === 'html' && format !== 'html') || declared === 'json' || declared === undefined;
  const { maxBytes } = ctx.config;

  if (target !== undefined && typeof target !== 'string') {
    const file = await openSave(ctx.writePolicy, target);
    try {
      let preview = '';
      let saved: { truncated: boolean; bytes: number | null; chars: number; title: string };
      if (whole) {
        const body = await readBody(res.body, { ...readOptions(res, maxBytes, decoderFor, signal) });
        const out = convert(kind, format, body.text, body.complete, finalUrl);
        await file.write(out.content);
        preview = out.content.slice(0, PREVIEW_CHARS + 1);
        saved = {
          truncated: body.capped,
          bytes: body.complete ? body.bytes : null,
          chars: out.content.length,
          title: out.title,
        };
      } else {
        const body = await readBody(res.body, {
          ...readOptions(res, ctx.config.maxSaveBytes, decoderFor, signal),
          sink: async (text) => {
            if (preview.length <= PREVIEW_CHARS) preview += text.slice(0, PREVIEW_CHARS + 1 - preview.length);
            await file.write(text);
          },
        });
        saved = {
          truncated: body.capped,
          bytes: body.complete ? body.bytes : null,
          chars: body.chars,
          title: '',
        };
      }
      await file.commit();
      await emitWrite(ctx, target.shown, file);
      const more = saved.chars - Math.min(saved.chars, PREVIEW_CHARS);
      const content = `${preview.slice(0, PREVIEW_CHARS)}${more > 0 ? `\n\n[... ${more} more characters saved to ${saveTo}]` : ''}`;
      return {
        success: true,
        output: {
          ...base,
          ...(saved.title ? { title: saved.title } : {}),
          content,
          truncated: saved.truncated,
          total_bytes: saved.bytes,
          saved_to: target.shown,
          saved_bytes: file.bytes,
        },
      };
    } catch (error) {
      await file.abort();
      throw error;
    }
  }

  const body = await readBody(res.body, {
    ...readOptions(res, maxBytes, decoderFor, signal),
    ...(whole ? {} : { stopAtChars: offset + limit + 1 }),
  });
  const { title, content: all } = convert(kind, format, body.text, body.complete, finalUrl);
  const { start, end } = pageOf(all, offset, limit);
  let content = all.slice(start, end);
  const more = end < all.length;
  const total = body.complete ? all.length : null;
  if (more) {
    content += `\n\n[Content truncated at ${limit} characters. Total: ${total ?? 'unknown'} characters. Use offset/limit to paginate or save_to_file for full content.]`;
  } else if (body.capped) {
    content += `\n\n[Content truncated: the body is larger than max_bytes (${maxBytes} bytes) and was not read further. Use save_to_file for full content.]`;
  }
  return {
    success: true,
    output: {
      ...base,
      ...(title ? { title } : {}),
      content,
      truncated: more || !body.complete,
      offset: start,
      limit,
      returned_chars: end - start,
      returned_bytes: Buffer.byteLength(all.slice(start, end), 'utf8'),
      total_chars: total,
      total_bytes: body.complete ? body.bytes : null,
    },
  };
}

function readOptions(
  res: HttpResponse,
  maxBytes: number,
  decoderFor: (head: Uint8Array) => TextDecoder,
  signal: AbortSignal,
) {
  return {
    contentEncoding: header(res.headers, 'content-encoding'),
    maxBytes,
    maxWireBytes: maxBytes + 65_536,
    decoderFor,
    signal,
  };
}

async function emitWrite(ctx: FetchContext, file: string, save: SaveFile): Promise<void> {
  try {
    await ctx.hooks?.emit(events.ARTIFACT_WRITE, { path: file, bytes: save.bytes, tool: 'web_fetch' });
  } catch {
    // an observer failing never fails the save
  }
}

/** JSON Schema of web_fetch's input. */
export const WEB_FETCH_SCHEMA: JSONSchema = {
  type: 'object',
  properties: {
    url: { type: 'string', description: 'The http or https URL to fetch' },
    save_to_file: {
      type: 'string',
      description:
        'Save the full content to this file (relative to the working directory) instead of returning it',
    },
    offset: {
      type: 'integer',
      minimum: 0,
      default: 0,
      description: 'Character offset of the returned window',
    },
    limit: { type: 'integer', minimum: 1, description: 'Characters returned at most (default 204800)' },
    format: {
      type: 'string',
      enum: ['markdown', 'text', 'html'],
      description: 'How HTML pages are returned: readable Markdown (default), plain text, or the raw HTML',
    },
  },
  required: ['url'],
};

function validate(input: Record<string, unknown>): string | null {
  if (typeof input.url !== 'string' || input.url.trim() === '') return 'URL is required';
  const { offset, limit, format, save_to_file } = input;
  if (offset !== undefined && !(Number.isInteger(offset) && (offset as number) >= 0)) {
    return 'offset must be an integer >= 0';
  }
  if (limit !== undefined && !(Number.isInteger(limit) && (limit as number) >= 1))
    return 'limit must be an integer >= 1';
  if (format !== undefined && !['markdown', 'text', 'html'].includes(format as string)) {
    return 'format must be one of markdown, text, html';
  }
  if (save_to_file !== undefined && (typeof save_to_file !== 'string' || save_to_file === '')) {
    return 'save_to_file must be a non-empty path';
  }
  return null;
}

/** The web_fetch tool of a mount. */
export function createWebFetchTool(ctx: FetchContext): Tool {
  return {
    name: 'web_fetch',
    description:
      'Fetch an http(s) URL and return its content: HTML pages as readable Markdown (or text/raw HTML with `format`), ' +
      'JSON pretty-printed, other text as is. Long content is paged with offset/limit (characters); ' +
      'save_to_file writes the full content to a file. Private and internal addresses are refused.',
    inputSchema: WEB_FETCH_SCHEMA,
    executionProfile: {
      resourceKeys(input): ResourceKey[] {
        const keys: ResourceKey[] = [];
        try {
          keys.push({ key: `net:${new URL(String(input.url).trim()).hostname.toLowerCase()}`, mode: 'read' });
        } catch {
          // an invalid URL touches nothing
        }
        if (typeof input.save_to_file === 'string' && input.save_to_file !== '') {
          keys.push({
            key: `file:${path.resolve(ctx.writePolicy.workingDir, input.save_to_file)}`,
            mode: 'write',
          });
        }
        return keys;
      },
    },
    async execute(input: Record<string, unknown>, options: ToolCallOptions = {}): Promise<ToolResult> {
      const problem = validate(input ?? {});
      if (problem !== null) return fail(problem);
      const rawUrl = String(input.url).trim();
      if (ctx.isClosed()) return fail('web_fetch is not available: the tool-web module was cleaned up');
      const call = callSignal(ctx.config.timeoutMs, options.signal);
      try {
        return await fetchUrl(ctx, input, call.signal);
      } catch (error) {
        if (options.signal?.aborted) return fail(`Cancelled fetching ${rawUrl}`, 'cancelled');
        if (call.timedOut()) {
          return fail(
            `Timeout fetching ${rawUrl} (no complete answer within ${ctx.config.timeoutMs / 1000} s)`,
            'timeout',
          );
        }
        if (error instanceof RedirectBlocked) {
          return fail(`Invalid or blocked URL: ${error.target} (redirected from ${rawUrl}: ${error.reason})`);
        }
        const reason = blockedReason(error);
        if (reason !== undefined) return fail(`Invalid or blocked URL: ${rawUrl} (${reason})`);
        if (error instanceof BinaryContent) {
          return fail(`Cannot fetch ${rawUrl}: the body is binary content; web_fetch returns text only`);
        }
        const code = (error as { code?: unknown }).code;
        if (code === 'UND_ERR_HEADERS_OVERFLOW') {
          return fail(
            `Failed to fetch ${rawUrl}: response headers exceed max_header_bytes (${ctx.config.maxHeaderBytes})`,
          );
        }
        return fail(
          `Failed to fetch ${rawUrl}: ${errorMessage(error)}${typeof code === 'string' ? ` (${code})` : ''}`,
        );
      } finally {
        call.dispose();
      }
    },
  };
}
