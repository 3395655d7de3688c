/**
 * One GET exchange of web_fetch: the request through the guarded dispatcher,
 * redirects followed by hand one hop at a time (each hop re-checked by
 * `checkUrl` before it is requested, and by the connector when it connects),
 * at most `maxRedirects`.
 */
import { AmplifierError } from '@amplifier/core';
import type { Dispatcher } from 'undici';
import { BlockedError, checkUrl, type NetworkPolicy, WEB_ERRORS } from './ssrf.js';

/** What a request needs from the mount. */
export interface RequestContext {
  dispatcher: Dispatcher;
  policy: NetworkPolicy;
  userAgent: string;
  maxRedirects: number;
}

/** The first value of a response header. */
export function header(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Drop a body we will not read (undici reports the early close as an 'error' event: swallow it). */
export function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  body.destroy();
}

/** The final response of a redirect chain. */
export interface HttpResponse {
  url: URL;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

/** GET `start`, following redirects hop by hop; every hop goes through `checkUrl` and the guarded connector. */
export async function request(ctx: RequestContext, start: URL, signal: AbortSignal): Promise<HttpResponse> {
  let url = start;
  for (let hop = 0; ; hop++) {
    let res: Dispatcher.ResponseData;
    try {
      res = await ctx.dispatcher.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: {
          'user-agent': ctx.userAgent,
          accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5',
          'accept-encoding': 'gzip, deflate, br',
        },
        signal,
      });
    } catch (error) {
      const reason = hop > 0 ? blockedReason(error) : undefined;
      if (reason !== undefined) throw new RedirectBlocked(url.href, reason);
      throw error;
    }
    const location = header(res.headers, 'location');
    if (![301, 302, 303, 307, 308].includes(res.statusCode) || location === undefined) {
      return { url, status: res.statusCode, headers: res.headers, body: res.body };
    }
    await res.body.dump({ limit: 65_536, signal }).catch(() => {});
    if (hop >= ctx.maxRedirects) {
      throw new Error(`Too many redirects (more than max_redirects = ${ctx.maxRedirects})`);
    }
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new BlockedError(`redirect to an invalid URL: ${location}`);
    }
    try {
      url = checkUrl(next, ctx.policy);
    } catch (error) {
      if (error instanceof BlockedError) throw new RedirectBlocked(next.href, error.reason);
      throw error;
    }
  }
}

/** A hop after the first was refused (code `WEB_REDIRECT_BLOCKED`); `target` is that hop's URL. */
export class RedirectBlocked extends AmplifierError {
  declare readonly code: 'WEB_REDIRECT_BLOCKED';
  readonly target: string;
  readonly reason: string;
  constructor(target: string, reason: string) {
    super('WEB_REDIRECT_BLOCKED', WEB_ERRORS.message('WEB_REDIRECT_BLOCKED', { reason }));
    this.target = target;
    this.reason = reason;
  }
}

/**
 * The reason of a BlockedError anywhere in `error`'s cause chain (the connector's refusals reach
 * us wrapped or not; matched by code, so also one from another copy of this module).
 */
export function blockedReason(error: unknown): string | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (WEB_ERRORS.is(e, 'WEB_URL_BLOCKED')) return (e as BlockedError).reason;
  }
  return undefined;
}
