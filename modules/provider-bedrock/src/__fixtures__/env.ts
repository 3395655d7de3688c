/**
 * Test environment: no AWS_* variable of the machine reaches a test (the SDK
 * would read them), shared config files point at nothing, and every provider
 * signs with static test credentials against a 127.0.0.1 server.
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventSink } from '@amplifier/core';
import { type BedrockConfig, resolveConfig } from '../config.js';
import { BedrockProvider } from '../provider.js';

/** Static SigV4 credentials for tests (never valid anywhere). */
export const TEST_CREDENTIALS = { accessKeyId: 'AKIDTESTBEDROCK', secretAccessKey: 'test-secret-key' };

/** Remove every AWS_* variable and point the shared config files at nothing; returns the restore. */
export function isolateAwsEnv(): () => void {
  const saved: Record<string, string | undefined> = {};
  for (const name of Object.keys(process.env)) {
    if (name.startsWith('AWS_')) {
      saved[name] = process.env[name];
      delete process.env[name];
    }
  }
  const missing = join(tmpdir(), `no-aws-config-${process.pid}`);
  process.env.AWS_CONFIG_FILE = join(missing, 'config');
  process.env.AWS_SHARED_CREDENTIALS_FILE = join(missing, 'credentials');
  process.env.AWS_EC2_METADATA_DISABLED = 'true';
  return () => {
    for (const name of Object.keys(process.env)) if (name.startsWith('AWS_')) delete process.env[name];
    Object.assign(process.env, saved);
  };
}

/** A recorded wire file (`__fixtures__/recorded/`, unchanged copies of realworld-fixtures/wire). */
export function recorded(name: string): Buffer {
  return readFileSync(new URL(`./recorded/${name}`, import.meta.url));
}

/** A provider against `url` in us-east-1 with the test credentials; retries fast, no jitter. */
export function testProvider(url: string, config: BedrockConfig = {}, hooks?: EventSink): BedrockProvider {
  return new BedrockProvider(
    resolveConfig(
      {
        base_url: url,
        aws_region: 'us-east-1',
        default_model: 'amazon.nova-micro-v1:0',
        min_retry_delay: 0.001,
        retry_jitter: false,
        ...config,
      },
      {},
    ),
    { credentials: TEST_CREDENTIALS, ...(hooks !== undefined && { hooks }) },
  );
}
