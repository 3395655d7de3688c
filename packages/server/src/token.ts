/**
 * The credential of a local service: 256 random bits per start unless the
 * user gave one (a flag or an environment variable), and the rule that a
 * bind off loopback needs a token the user chose (a generated one would be
 * printed on a terminal that other machines' users never see, but it would
 * also mean the user never decided to open the door).
 */
import { randomBytes } from 'node:crypto';
import {
  AmplifierError,
  type AmplifierErrorOptions,
  type CodesOf,
  defineErrors,
  type ErrorTable,
} from '@amplifier/core';
import { isLoopbackAddress } from './addresses.js';

/** Random bytes in a generated token (256 bits). */
export const TOKEN_BYTES = 32;

/** A new token: 32 random bytes, base64url (43 characters, safe in a URL, a header and a cookie). */
export function newToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

const rows = {
  SERVICE_SETUP_INVALID: {
    name: 'ServiceSetupError',
    description: 'a service cannot start as asked (its host, token, port, socket or endpoint path)',
  },
} as const;

/** The code of this package, declared in core's error factory (the thrower writes the message). */
export const SERVER_ERRORS: ErrorTable<typeof rows> = defineErrors(rows);

declare module '@amplifier/core' {
  interface DeclaredErrorCodes extends CodesOf<typeof SERVER_ERRORS> {}
}

/**
 * A problem with how a service was asked to start (code `SERVICE_SETUP_INVALID`): the message
 * says what was wanted, what was found and what to do.
 */
export class ServiceSetupError extends AmplifierError {
  declare readonly code: 'SERVICE_SETUP_INVALID';
  constructor(message: string, options?: AmplifierErrorOptions) {
    super('SERVICE_SETUP_INVALID', message, options);
  }
}

export interface ServiceTokenOptions {
  /** The service, in messages (`amplifier view`). */
  service: string;
  /** The address it will bind. */
  host: string;
  /** `--token <value>`. */
  flag?: string | undefined;
  /** The environment variable that may hold the token (`AMPLIFIER_VIEW_TOKEN`), and the environment. */
  envName: string;
  env?: NodeJS.ProcessEnv;
}

/** Where a service's token came from. */
export interface ServiceToken {
  token: string;
  source: 'flag' | 'env' | 'generated';
}

const TOKEN_SHAPE = /^[\x21-\x7e]+$/;

/**
 * The token a service starts with: `--token`, else the environment
 * variable, else a new one. Throws `ServiceSetupError` before anything is
 * bound when the host is not loopback and the user gave no token, or when the
 * given token is not printable ASCII without spaces (it must fit a header and
 * a cookie).
 */
export function resolveServiceToken(options: ServiceTokenOptions): ServiceToken {
  const env = options.env ?? process.env;
  const fromEnv = env[options.envName];
  const given =
    options.flag !== undefined
      ? { token: options.flag, source: 'flag' as const, where: '--token' }
      : fromEnv !== undefined && fromEnv !== ''
        ? { token: fromEnv, source: 'env' as const, where: options.envName }
        : undefined;
  if (given !== undefined) {
    if (!TOKEN_SHAPE.test(given.token)) {
      throw new ServiceSetupError(
        `${options.service}: the token from ${given.where} must be printable ASCII without spaces (it goes in a header and a cookie); got ${given.token.length} characters that are not. Use a random string such as the output of: openssl rand -hex 32`,
      );
    }
    return { token: given.token, source: given.source };
  }
  if (!isLoopbackAddress(options.host)) {
    throw new ServiceSetupError(
      `${options.service}: --host ${options.host} is not a loopback address, so other machines could reach it: give a token of your own with --token or ${options.envName} (for example: ${options.envName}=$(openssl rand -hex 32)), or bind 127.0.0.1.`,
    );
  }
  return { token: newToken(), source: 'generated' };
}
