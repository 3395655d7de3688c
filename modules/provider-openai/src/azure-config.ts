/**
 * The config keys of the Azure OpenAI flavour (module id `provider-azure-openai`,
 * an alias of this module): Amplifier's own keys for azure-openai, read only
 * when the config is Azure's (`azure: true`, which the alias sets, or an
 * `azure_endpoint`). Imports nothing from `config.ts`, which spreads these
 * keys into the module's one schema.
 */

/** `v1` (the v1 API, default), `preview`/`latest` (the v1 API with that `api-version`), or a dated version (`2024-10-21`, `2025-04-01-preview`: the deployment URLs). */
export const API_VERSION_PATTERN = '^(v1|preview|latest|\\d{4}-\\d{2}-\\d{2}(-preview)?)$';

/** The Azure keys (schemas written `as const`: the source of their types). */
export const AZURE_CONFIG_PROPERTIES = {
  /** Talk to Azure OpenAI (the `provider-azure-openai` alias sets it). */
  azure: { type: 'boolean' },
  /** `https://<resource>.openai.azure.com` (a trailing `/openai` or `/openai/v1` is dropped). Env `AZURE_OPENAI_ENDPOINT`, else `AZURE_OPENAI_BASE_URL`. */
  azure_endpoint: { type: 'string', pattern: '^https?://' },
  /** Env `OPENAI_API_VERSION`, else `AZURE_OPENAI_API_VERSION`, else `v1`. */
  api_version: { type: 'string', pattern: '^(v1|preview|latest|\\d{4}-\\d{2}-\\d{2}(-preview)?)$' },
  /** The deployment of a request that names no model, after `default_model`. */
  default_deployment: { type: 'string', minLength: 1 },
  /** Microsoft Entra ID through the managed identity of the host. Env `AZURE_USE_MANAGED_IDENTITY`. */
  use_managed_identity: { type: 'boolean' },
  /** Microsoft Entra ID through `DefaultAzureCredential`. Env `AZURE_USE_DEFAULT_CREDENTIAL`. */
  use_default_credential: { type: 'boolean' },
  /** A user-assigned managed identity. Env `AZURE_MANAGED_IDENTITY_CLIENT_ID`. */
  managed_identity_client_id: { type: 'string', minLength: 1 },
  /** A Microsoft Entra ID access token, sent as it is (it is not refreshed). Env `AZURE_OPENAI_AD_TOKEN`. */
  azure_ad_token: { type: 'string', minLength: 1 },
  /** `PTU` (provisioned throughput): no per-token cost is reported. */
  deployment_type: { type: 'string' },
} as const;
