/**
 * The ops inbox: a question index over Temporal's visibility, the HTTP API and live page over it, and the
 * server that runs them. Node-only.
 */
export {
  QuestionIndex,
  QUESTION_INDEX_STATUSES,
  type IndexedQuestion,
  type IndexedRecord,
  type QuestionCounts,
  type QuestionEvent,
  type QuestionIndexOptions,
  type QuestionIndexStatus,
  type QuestionListOptions,
  type QuestionPage,
  type QuestionSubscription,
  type Answerer,
  isAssignedTo,
} from './question-index';
export {
  OidcLogin,
  OidcLoginError,
  DEFAULT_GROUPS_CLAIM,
  DEFAULT_SCOPES,
  PENDING_LOGIN_TTL_MS,
  oidcSettingsFromEnv,
  type OidcIdentity,
  type OidcSettings,
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
  type TokenHolder,
} from './inbox-auth';
export {
  CONTENT_SECURITY_POLICY,
  DEFAULT_MAX_BODY_BYTES,
  SESSION_COOKIE,
  SSO_LOGIN_COOKIE,
  DEFAULT_LOGIN_LIMIT,
  MAX_STREAMS_PER_LOGIN,
  DEFAULT_STREAM_LIFETIME_MS,
  createInboxApp,
  type LoginLimit,
  type InboxApp,
  type InboxAppOptions,
  type InboxRoute,
} from './inbox-app';
export {
  DEFAULT_INBOX_HOST,
  DEFAULT_INBOX_PORT,
  startInboxServer,
  type InboxServer,
  type InboxServerOptions,
} from './inbox-server';
export { inboxLink } from '../question/inbox-link';
