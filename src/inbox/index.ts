/**
 * The ops inbox: a question index over Temporal's visibility, the HTTP API and live page over it, and the
 * server that runs them. Node-only.
 */
export {
  QuestionIndex,
  type IndexedQuestion,
  type IndexedRecord,
  type QuestionCounts,
  type QuestionIndexOptions,
  type QuestionListOptions,
  type QuestionPage,
} from './question-index';
export {
  QUESTION_INDEX_STATUSES,
  isAssignedTo,
  type Answerer,
  type QuestionIndexStatus,
} from '../ops/question-listing';
export type { QuestionEvent, QuestionSubscription } from '../ops/question-watcher';
export {
  OidcLogin,
  OidcLoginError,
  DEFAULT_GROUPS_CLAIM,
  DEFAULT_SCOPES,
  PENDING_LOGIN_TTL_MS,
  oidcSettingsFromEnv,
  type OidcIdentity,
  type OidcSettings,
  type PendingLogin,
} from './oidc-login';
export {
  InboxAuth,
  MIN_TOKEN_LENGTH,
  SESSION_TTL_MS,
  generateToken,
  parseUsersFile,
  type InboxAuthOptions,
  type InboxSession,
  type InboxUser,
  type SessionLogin,
  type TokenHolder,
} from './inbox-auth';
export type { SessionRevocations } from './session-revocations';
export { createInboxApp, type InboxApp, type InboxAppOptions, type InboxRoute } from './inbox-app';
export { CONTENT_SECURITY_POLICY } from './security-headers';
export { DEFAULT_MAX_BODY_BYTES } from './json-body';
export { SESSION_COOKIE } from './inbox-session';
export { SSO_LOGIN_COOKIE } from './sso-routes';
export { DEFAULT_LOGIN_LIMIT, type LoginLimit } from './login-limits';
export { DEFAULT_STREAM_LIFETIME_MS, MAX_STREAMS_PER_LOGIN } from './event-routes';
export {
  DEFAULT_INBOX_HOST,
  DEFAULT_INBOX_PORT,
  startInboxServer,
  type InboxServer,
  type InboxServerOptions,
} from './inbox-server';
export { inboxLink } from '../question/inbox-link';
