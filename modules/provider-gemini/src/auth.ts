/**
 * Vertex AI authentication: an OAuth access token per request, from a
 * `TokenSource`: a fixed token (config `vertex.access_token`), or Google's
 * Application Default Credentials through `google-auth-library`, imported
 * only when Vertex is used without a fixed token (an optional peer: Gemini
 * API users never load it). `bearerTransport` adds the token to every request
 * of a transport.
 */
import { createLLMError, errorMessage, LLMError } from '@amplifier/core';
import type { Transport } from '@amplifier/provider-http';

/** Where Vertex AI access tokens come from. Caching and refreshing are the source's business. */
export interface TokenSource {
  /** A valid access token (without the `Bearer ` prefix). */
  getToken(): Promise<string>;
}

/** The OAuth scope Vertex AI needs. */
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/** A source that always gives `token`. */
export function staticTokenSource(token: string): TokenSource {
  return { getToken: () => Promise.resolve(token) };
}

/** The part of `google-auth-library` used here (typed structurally: it is an optional peer). */
interface GoogleAuthModule {
  GoogleAuth: new (options: { scopes: string[] }) => { getClient(): Promise<AuthClient> };
}

/** A credential's client: it caches its access token and refreshes it before it expires. */
interface AuthClient {
  getAccessToken(): Promise<{ token?: string | null }>;
}

/** How the library is loaded (tests inject a failing or fake one). */
export type AuthLibraryLoader = () => Promise<GoogleAuthModule>;

const LIBRARY = 'google-auth-library';
const loadLibrary: AuthLibraryLoader = () => import(LIBRARY) as Promise<GoogleAuthModule>;

const HOW_TO =
  'run `gcloud auth application-default login`, set GOOGLE_APPLICATION_CREDENTIALS to a service account key file, or give vertex.access_token';

/**
 * Application Default Credentials (`GOOGLE_APPLICATION_CREDENTIALS`, gcloud's
 * ADC file, or the metadata server on Google Cloud) through
 * `google-auth-library`, loaded on the first request. The library caches the
 * token and refreshes it before it expires. Failures are `authentication`
 * LLMErrors that say what to do.
 */
export function adcTokenSource(load: AuthLibraryLoader = loadLibrary): TokenSource {
  let auth: Promise<{ getClient(): Promise<AuthClient> }> | undefined;
  return {
    async getToken() {
      auth ??= load().then(
        (library) => new library.GoogleAuth({ scopes: [CLOUD_PLATFORM_SCOPE] }),
        (error: unknown) => {
          auth = undefined;
          throw createLLMError(
            'configuration',
            `gemini: Vertex AI without vertex.access_token needs the optional package google-auth-library for Application Default Credentials (npm install google-auth-library): ${errorMessage(error)}`,
            { provider: 'gemini', cause: error },
          );
        },
      );
      const client = await auth;
      let token: string | null | undefined;
      try {
        // The credential's own client (not GoogleAuth.getAccessToken, which may look the project up first).
        token = (await (await client.getClient()).getAccessToken()).token;
      } catch (error) {
        throw createLLMError(
          'authentication',
          `gemini: could not get a Google Cloud access token for Vertex AI (${errorMessage(error)}); ${HOW_TO}`,
          { provider: 'gemini', cause: error },
        );
      }
      if (typeof token !== 'string' || token === '') {
        throw createLLMError(
          'authentication',
          `gemini: Application Default Credentials gave no access token; ${HOW_TO}`,
          {
            provider: 'gemini',
          },
        );
      }
      return token;
    },
  };
}

/**
 * `inner` with `authorization: Bearer <token>` on every request, the token
 * asked for each time. A request that already has an `authorization` header
 * (config `headers`) is sent as it is: an explicit header wins.
 */
export function bearerTransport(inner: Transport, tokens: TokenSource): Transport {
  return {
    async request(request) {
      if (request.headers.authorization !== undefined) return inner.request(request);
      let token: string;
      try {
        token = await tokens.getToken();
      } catch (error) {
        if (LLMError.is(error)) throw error;
        throw createLLMError(
          'authentication',
          `gemini: the Vertex AI token source failed (${errorMessage(error)}); ${HOW_TO}`,
          {
            provider: 'gemini',
            cause: error,
          },
        );
      }
      return inner.request({ ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } });
    },
    close: () => inner.close(),
  };
}
