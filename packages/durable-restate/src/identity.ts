/**
 * Restate's request identity: the server signs every call to a service
 * endpoint with an Ed25519 key, and the worker accepts only calls signed by
 * that key (the SDK's `identityKeys`). For a local server Amplifier makes
 * the key pair at start, so another local user who finds the worker's
 * loopback port cannot run turns or tools through it.
 */
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function base58(bytes: Uint8Array): string {
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  let out = '';
  while (n > 0n) {
    out = BASE58[Number(n % 58n)]! + out;
    n /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    out = `1${out}`;
  }
  return out;
}

/** A request identity key pair: the private key's PEM file (for the server) and the public key id (for the worker). */
export interface RequestIdentity {
  /** PKCS#8 PEM of the private key, mode 0600. */
  privateKeyFile: string;
  /** `publickeyv1_<base58 of the raw public key>`, as Restate logs it and the SDK's `identityKeys` take it. */
  publicKey: string;
}

/** Make a new Ed25519 key pair and write its private key to `<dir>/request-identity.pem` (0600). */
export function createRequestIdentity(dir: string): RequestIdentity {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const privateKeyFile = path.join(dir, 'request-identity.pem');
  fs.rmSync(privateKeyFile, { force: true });
  fs.writeFileSync(privateKeyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), {
    mode: 0o600,
    flag: 'wx',
  });
  const raw = Buffer.from(String(publicKey.export({ format: 'jwk' }).x), 'base64url');
  return { privateKeyFile, publicKey: `publickeyv1_${base58(raw)}` };
}
