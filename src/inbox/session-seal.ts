/**
 * Sealed cookies: what the inbox keeps between a browser's requests (a page login, a single sign-on under way)
 * travels in the cookie itself, encrypted and authenticated as a JWE (`dir`, `A256GCM`, through `jose`), so any
 * inbox process holding the same key opens it, after a restart or on another replica.
 *
 * The key comes from `ASK_USER_INBOX_SESSION_KEY`: one or more secrets of at least 32 characters, separated
 * by commas; the first seals, every one opens (a deploy can rotate the key without logging everyone out). Each
 * purpose gets its own key, derived with HKDF, so a cookie of one purpose never opens as another. Without a
 * configured key, a random one per process: logins then end when the process stops and no other replica can
 * open them. It is not derived from a token: whoever holds the shared token could then seal a login of any
 * name and any groups.
 */
import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import { EncryptJWT, jwtDecrypt, type JWTPayload } from 'jose';
import { UserInteractionError } from '../interaction/user-interaction-error';

/** The variable that holds the session key(s). */
export const SESSION_KEY_VARIABLE = 'ASK_USER_INBOX_SESSION_KEY';
/** Shortest key accepted: 32 characters, as `openssl rand -base64 32` prints 44. */
export const MIN_SESSION_KEY_LENGTH = 32;

/** What a sealed cookie is for: a page login, or a single sign-on between its two requests. */
export type SealPurpose = 'session' | 'sso-login';

const ALGORITHM = 'dir';
const ENCRYPTION = 'A256GCM';

/** One key: its id (in the JWE header, to pick the key that opens) and the derived key of each purpose. */
interface SealKey {
  id: string;
  keys: Record<SealPurpose, Uint8Array>;
}

function derive(secret: string, info: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), info, 32));
}

function sealKey(secret: string): SealKey {
  return {
    // A hash of a derived key names it: it says which key sealed a cookie and nothing of the secret.
    id: createHash('sha256')
      .update(derive(secret, 'ask-user inbox key id'))
      .digest()
      .subarray(0, 9)
      .toString('base64url'),
    keys: {
      session: derive(secret, 'ask-user inbox session'),
      'sso-login': derive(secret, 'ask-user inbox sso login'),
    },
  };
}

/**
 * The keys of `ASK_USER_INBOX_SESSION_KEY`'s value: comma-separated, each at least
 * {@link MIN_SESSION_KEY_LENGTH} characters with no whitespace.
 *
 * @throws Error naming `where` and the first unusable key.
 */
export function parseSessionKeys(text: string, where = SESSION_KEY_VARIABLE): string[] {
  const keys = text.split(',').map((key) => key.trim());
  keys.forEach((key, index) => {
    const which = keys.length === 1 ? 'the key' : `key ${index + 1}`;
    if (/\s/.test(key))
      throw UserInteractionError.invalidSetting(`${where}: ${which} must not contain whitespace`);
    if (key.length < MIN_SESSION_KEY_LENGTH) {
      throw UserInteractionError.invalidSetting(
        `${where}: ${which} has ${key.length} characters, at least ${MIN_SESSION_KEY_LENGTH} are needed (e.g. openssl rand -base64 32)`,
      );
    }
  });
  return keys;
}

/**
 * Seals and opens cookies with the inbox's session key.
 *
 * @example
 * const seal = new SessionSeal(['a-secret-of-at-least-32-characters...']);
 * const cookie = await seal.seal('session', { name: 'alice' }, 'id', Date.now() + 60_000);
 * (await seal.open('session', cookie))?.name; // 'alice'
 */
export class SessionSeal {
  private readonly keys: readonly SealKey[];
  /** True when no key was configured: a random one of this process, which a restart forgets. */
  readonly ephemeral: boolean;

  /** @param secrets the configured keys, the first sealing; none for a random key of this process. */
  constructor(secrets: readonly string[] = []) {
    this.ephemeral = secrets.length === 0;
    const used = this.ephemeral ? [randomBytes(32).toString('base64url')] : secrets;
    this.keys = used.map(sealKey);
  }

  /** Seals `claims` for `purpose` under the id `id` (the JWT's `jti`), readable until `expiresAt`. */
  async seal(purpose: SealPurpose, claims: JWTPayload, id: string, expiresAt: number): Promise<string> {
    const key = this.keys[0]!;
    return await new EncryptJWT(claims)
      .setProtectedHeader({ alg: ALGORITHM, enc: ENCRYPTION, kid: key.id })
      .setAudience(purpose)
      .setJti(id)
      .setIssuedAt()
      .setExpirationTime(Math.floor(expiresAt / 1000))
      .encrypt(key.keys[purpose]);
  }

  /**
   * The claims of a cookie sealed for `purpose` by one of the keys, or `undefined` when it was not (forged,
   * altered, sealed for another purpose or by a key no longer configured) or its time is up at `now`.
   */
  async open(purpose: SealPurpose, sealed: string, now = Date.now()): Promise<JWTPayload | undefined> {
    try {
      const { payload } = await jwtDecrypt(
        sealed,
        (header) => {
          const key = this.keys.find((each) => each.id === header.kid);
          if (key === undefined) throw new Error('sealed by an unknown key');
          return key.keys[purpose];
        },
        {
          audience: purpose,
          currentDate: new Date(now),
          requiredClaims: ['exp', 'jti'],
          keyManagementAlgorithms: [ALGORITHM],
          contentEncryptionAlgorithms: [ENCRYPTION],
        },
      );
      return payload;
    } catch {
      return undefined;
    }
  }
}

/**
 * A fingerprint of `secret` (a token, or the provider a login came from): a session records the one that
 * proved it, so a token taken away or changed ends the sessions it started. It travels only inside a sealed
 * cookie, and does not depend on the key, so a rotated key keeps the sessions it still opens.
 */
export function fingerprint(secret: string): string {
  return createHash('sha256')
    .update('ask-user inbox login proof\n')
    .update(secret, 'utf8')
    .digest()
    .subarray(0, 16)
    .toString('base64url');
}
