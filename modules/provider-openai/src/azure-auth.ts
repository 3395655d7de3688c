/**
 * Microsoft Entra ID for Azure OpenAI: bearer tokens for the Cognitive
 * Services scope from a `TokenCredential` (any `@azure/identity` credential,
 * or one an app brings), cached and refreshed before they expire, and added
 * to every request by `entraTransport`. `@azure/identity` is an optional peer,
 * imported only when a config asks for a managed identity or
 * `DefaultAzureCredential` (API-key users never load it).
 */
import { createLLMError, errorMessage, LLMError } from '@amplifier/core';
import type { Transport } from '@amplifier/provider-http';

/** The scope of Azure OpenAI's Entra ID tokens. */
export const COGNITIVE_SERVICES_SCOPE = 'https://cognitiveservices.azure.com/.default';

/** A token as `@azure/identity` gives it (`AccessToken`). */
export interface AzureAccessToken {
  token: string;
  /** Epoch milliseconds. */
  expiresOnTimestamp: number;
  /** Epoch milliseconds after which the credential advises a refresh. */
  refreshAfterTimestamp?: number;
}

/** The shape of `@azure/identity`'s `TokenCredential` (typed structurally: the package is an optional peer). */
export interface AzureTokenCredential {
  getToken(scopes: string | string[]): Promise<AzureAccessToken | null>;
}

/** Where the bearer tokens of requests come from. */
export interface AzureTokenSource {
  /** A valid access token (without `Bearer `). */
  getToken(): Promise<string>;
}

/** A token is refreshed this long before it expires (the Azure SDK's own margin is 2 to 5 minutes). */
export const REFRESH_MARGIN_MS: number = 5 * 60 * 1000;

const HOW_TO =
  'sign in with `az login`, give the host a managed identity with the "Cognitive Services OpenAI User" role, or set AZURE_OPENAI_API_KEY';

function authFailure(what: string, error?: unknown): LLMError {
  return createLLMError('authentication', `azure-openai: ${what}; ${HOW_TO}`, {
    provider: 'azure-openai',
    ...(error !== undefined && { cause: error }),
  });
}

/**
 * Tokens of `credential` for the Cognitive Services scope, cached: a token is
 * used until `refreshAfterTimestamp`, else until `REFRESH_MARGIN_MS` before it
 * expires; concurrent requests share one refresh; a refresh that fails while
 * the cached token is still valid keeps using it.
 */
export function credentialTokenSource(
  credential: AzureTokenCredential,
  now: () => number = Date.now,
): AzureTokenSource {
  let cached: AzureAccessToken | undefined;
  let refreshing: Promise<AzureAccessToken> | undefined;
  const refresh = async (): Promise<AzureAccessToken> => {
    let token: AzureAccessToken | null;
    try {
      token = await credential.getToken(COGNITIVE_SERVICES_SCOPE);
    } catch (error) {
      if (LLMError.is(error)) throw error;
      throw authFailure(`could not get a Microsoft Entra ID token (${errorMessage(error)})`, error);
    }
    if (token === null || typeof token?.token !== 'string' || token.token === '')
      throw authFailure('the credential gave no Microsoft Entra ID token');
    cached = token;
    return token;
  };
  return {
    async getToken() {
      const current = cached;
      const refreshAt =
        current === undefined
          ? 0
          : (current.refreshAfterTimestamp ?? current.expiresOnTimestamp - REFRESH_MARGIN_MS);
      if (current !== undefined && now() < refreshAt) return current.token;
      refreshing ??= refresh().finally(() => {
        refreshing = undefined;
      });
      try {
        return (await refreshing).token;
      } catch (error) {
        if (current !== undefined && now() < current.expiresOnTimestamp) return current.token;
        throw error;
      }
    },
  };
}

/** The part of `@azure/identity` used here. */
export interface AzureIdentityModule {
  DefaultAzureCredential: new (options?: { managedIdentityClientId?: string }) => AzureTokenCredential;
  ManagedIdentityCredential: new (options?: { clientId?: string }) => AzureTokenCredential;
}

/** How `@azure/identity` is loaded (tests inject a failing one). */
export type AzureIdentityLoader = () => Promise<AzureIdentityModule>;

const LIBRARY = '@azure/identity';
const loadIdentity: AzureIdentityLoader = () => import(LIBRARY) as Promise<AzureIdentityModule>;

/** Which `@azure/identity` credential a config asks for. */
export interface IdentityChoice {
  kind: 'managed_identity' | 'default_credential';
  clientId?: string | undefined;
}

/**
 * A credential of `@azure/identity`, built on the first request (the package
 * is imported then): `ManagedIdentityCredential` or `DefaultAzureCredential`,
 * with the user-assigned identity's client id when one is given. Without the
 * package: a configuration error that says to install it.
 */
export function identityCredential(
  choice: IdentityChoice,
  load: AzureIdentityLoader = loadIdentity,
): AzureTokenCredential {
  let credential: Promise<AzureTokenCredential> | undefined;
  return {
    async getToken(scopes) {
      credential ??= load().then(
        (library) =>
          choice.kind === 'managed_identity'
            ? new library.ManagedIdentityCredential(
                choice.clientId === undefined ? {} : { clientId: choice.clientId },
              )
            : new library.DefaultAzureCredential(
                choice.clientId === undefined ? {} : { managedIdentityClientId: choice.clientId },
              ),
        (error: unknown) => {
          credential = undefined;
          throw createLLMError(
            'configuration',
            `azure-openai: ${choice.kind === 'managed_identity' ? 'use_managed_identity' : 'use_default_credential'} needs the optional package @azure/identity (npm install @azure/identity), or set AZURE_OPENAI_API_KEY instead: ${errorMessage(error)}`,
            { provider: 'azure-openai', cause: error },
          );
        },
      );
      return (await credential).getToken(scopes);
    },
  };
}

/** A source that always gives `token` (config `azure_ad_token`). */
export function staticTokenSource(token: string): AzureTokenSource {
  return { getToken: () => Promise.resolve(token) };
}

/**
 * `inner` with `authorization: Bearer <token>` on every request, the token
 * asked for each time (the source caches it). A request that already has an
 * `authorization` header (config `headers`) is sent as it is.
 */
export function entraTransport(inner: Transport, tokens: AzureTokenSource): Transport {
  return {
    async request(request) {
      if (request.headers.authorization !== undefined) return inner.request(request);
      let token: string;
      try {
        token = await tokens.getToken();
      } catch (error) {
        if (LLMError.is(error)) throw error;
        throw authFailure(`the token source failed (${errorMessage(error)})`, error);
      }
      return inner.request({ ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } });
    },
    close: () => inner.close(),
  };
}
