/**
 * Where the server is, as the worker, the provider and the CLI all read it: `loadTemporalSettings` over
 * `@temporalio/envconfig` (the `TEMPORAL_*` variables and the Temporal config file's profiles), and
 * `taskQueueFromEnv`. Pure: each call is handed its own environment, so nothing here reads the machine's.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { inspect } from 'node:util';

import { loadTemporalSettings, taskQueueFromEnv, type TemporalSettings } from '../../src/connection';

/**
 * The settings, after checking that the connection options hold no key set to `undefined`: they are spread
 * into `Connection.connect` and `NativeConnection.connect`, where such a key would override a default.
 */
function settingsOf(...args: Parameters<typeof loadTemporalSettings>): TemporalSettings {
  const settings = loadTemporalSettings(...args);
  const undefinedKeys = Object.entries(settings.connectionOptions)
    .filter((entry) => entry[1] === undefined)
    .map(([key]) => key);
  assert.deepEqual(undefinedKeys, [], 'connection options without undefined-valued keys');
  return settings;
}

describe('loadTemporalSettings: environment variables', () => {
  test('with nothing set: localhost:7233 and the default namespace, no TLS, no API key', () => {
    assert.deepEqual(settingsOf({ env: {} }), {
      address: 'localhost:7233',
      namespace: 'default',
      connectionOptions: { address: 'localhost:7233' },
    });
  });

  test('TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE', () => {
    assert.deepEqual(
      settingsOf({
        env: { TEMPORAL_ADDRESS: 'temporal.internal:7233', TEMPORAL_NAMESPACE: 'ops', UNRELATED: undefined },
      }),
      {
        address: 'temporal.internal:7233',
        namespace: 'ops',
        connectionOptions: { address: 'temporal.internal:7233' },
      },
    );
  });

  test('TEMPORAL_API_KEY sets the API key and turns TLS on; TEMPORAL_TLS=false turns it off again', () => {
    const cloud = {
      TEMPORAL_ADDRESS: 'payments.a1b2c.tmprl.cloud:7233',
      TEMPORAL_NAMESPACE: 'payments.a1b2c',
      TEMPORAL_API_KEY: 'key-123',
    };
    assert.deepEqual(settingsOf({ env: cloud }), {
      address: 'payments.a1b2c.tmprl.cloud:7233',
      namespace: 'payments.a1b2c',
      connectionOptions: { address: 'payments.a1b2c.tmprl.cloud:7233', apiKey: 'key-123', tls: true },
    });
    assert.deepEqual(settingsOf({ env: { ...cloud, TEMPORAL_TLS: 'false' } }).connectionOptions, {
      address: 'payments.a1b2c.tmprl.cloud:7233',
      apiKey: 'key-123',
      tls: false,
    });
  });

  test('TEMPORAL_GRPC_META_* become gRPC metadata', () => {
    assert.deepEqual(settingsOf({ env: { TEMPORAL_GRPC_META_X_TEAM: 'payments' } }).connectionOptions, {
      address: 'localhost:7233',
      metadata: { 'x-team': 'payments' },
    });
  });
});

describe('loadTemporalSettings: profiles of the Temporal config file', () => {
  let directory: string;
  let configFile: string;

  before(async () => {
    directory = await fs.mkdtemp(path.join(os.tmpdir(), 'ask-user-connection-config-'));
    configFile = path.join(directory, 'temporal.toml');
    await fs.writeFile(
      configFile,
      [
        '[profile.default]',
        'address = "temporal.dev.internal:7233"',
        'namespace = "dev"',
        '',
        '[profile.staging]',
        'address = "staging.a1b2c.tmprl.cloud:7233"',
        'namespace = "staging.a1b2c"',
        'api_key = "staging-key"',
        '',
        '[profile.staging.grpc_meta]',
        'x-team = "payments"',
        '',
        '[profile.secure]',
        'address = "temporal.secure.internal:7233"',
        '',
        '[profile.secure.tls]',
        'server_name = "temporal.secure.internal"',
        '',
      ].join('\n'),
    );
  });

  after(async () => {
    await fs.rm(directory, { recursive: true, force: true });
  });

  const staging: TemporalSettings = {
    address: 'staging.a1b2c.tmprl.cloud:7233',
    namespace: 'staging.a1b2c',
    connectionOptions: {
      address: 'staging.a1b2c.tmprl.cloud:7233',
      apiKey: 'staging-key',
      tls: true,
      metadata: { 'x-team': 'payments' },
    },
  };

  test('TEMPORAL_CONFIG_FILE alone: its default profile', () => {
    assert.deepEqual(settingsOf({ env: { TEMPORAL_CONFIG_FILE: configFile } }), {
      address: 'temporal.dev.internal:7233',
      namespace: 'dev',
      connectionOptions: { address: 'temporal.dev.internal:7233' },
    });
  });

  test('TEMPORAL_PROFILE=staging selects the staging profile', () => {
    assert.deepEqual(
      settingsOf({ env: { TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'staging' } }),
      staging,
    );
  });

  test('the profile option selects a profile, and wins over TEMPORAL_PROFILE', () => {
    assert.deepEqual(settingsOf({ profile: 'staging', env: { TEMPORAL_CONFIG_FILE: configFile } }), staging);
    assert.deepEqual(
      settingsOf({
        profile: 'staging',
        env: { TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'secure' },
      }),
      staging,
    );
  });

  test('environment variables override the profile field by field', () => {
    assert.deepEqual(
      settingsOf({
        env: { TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'staging', TEMPORAL_NAMESPACE: 'hotfix' },
      }),
      { ...staging, namespace: 'hotfix' },
    );
  });

  test("a profile's TLS table reaches the connection options", () => {
    const settings = settingsOf({ profile: 'secure', env: { TEMPORAL_CONFIG_FILE: configFile } });
    assert.equal(settings.address, 'temporal.secure.internal:7233');
    assert.equal(settings.namespace, 'default');
    const { tls } = settings.connectionOptions;
    assert.equal(
      typeof tls === 'object' ? tls?.serverNameOverride : `no TLS options: ${inspect(tls)}`,
      'temporal.secure.internal',
    );
  });

  test('a profile that the file does not have is an error naming it', () => {
    assert.throws(
      () => loadTemporalSettings({ profile: 'production', env: { TEMPORAL_CONFIG_FILE: configFile } }),
      /'production'/,
    );
  });

  test('a TEMPORAL_CONFIG_FILE that does not exist is no error: the defaults apply', () => {
    assert.deepEqual(settingsOf({ env: { TEMPORAL_CONFIG_FILE: path.join(directory, 'missing.toml') } }), {
      address: 'localhost:7233',
      namespace: 'default',
      connectionOptions: { address: 'localhost:7233' },
    });
  });
});

describe('taskQueueFromEnv', () => {
  test('ASK_USER_TASK_QUEUE, trimmed; unset or blank means ask-user-question', () => {
    assert.equal(taskQueueFromEnv({}), 'ask-user-question');
    assert.equal(taskQueueFromEnv({ ASK_USER_TASK_QUEUE: '   ' }), 'ask-user-question');
    assert.equal(taskQueueFromEnv({ ASK_USER_TASK_QUEUE: ' ops-questions ' }), 'ops-questions');
  });
});
