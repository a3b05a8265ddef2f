/**
 * The standing grants' routes of the inbox API, as `@hono/zod-openapi` definitions with their bodies: list
 * (`GET /api/grants`), grant (`POST /api/grants`, the granter from the login) and revoke
 * (`POST /api/grants/revoke`). `grant-routes.ts` registers the handlers on them.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { MAX_POLICY_DURATION_MS } from '../question/question-policy';
import { QUESTION_ERRORS, SECURITY, WITH_BODY, errors, json, jsonBody } from './api-routes';

const tags = ['grants'];

const timestamp = z.string().openapi({ format: 'date-time', example: '2026-12-04T09:30:00.000Z' });

const STATUSES = ['active', 'revoked', 'expired'] as const;

const jsonSchemaObject = z
  .record(z.string(), z.unknown())
  .openapi({ description: 'A JSON Schema the call’s input must match.' });

export const grantSchema = z
  .object({
    id: z.string().openapi({ example: 'deploy-bot/3f9a0c2b7d41' }),
    agentId: z.string(),
    toolName: z.string(),
    inputSchema: jsonSchemaObject.optional(),
    input: z.unknown().optional().openapi({ description: 'Only calls with exactly this input.' }),
    sessionId: z.string().optional(),
    grantedBy: z.string(),
    grantedByGroups: z.array(z.string()).optional().openapi({
      description: 'The granter’s groups at their login: a call’s audience is checked against them.',
    }),
    grantedAt: timestamp,
    expiresAt: timestamp,
    note: z.string().optional(),
    grantedWith: z.string().optional().openapi({ description: 'The approval it was granted with.' }),
    revokedAt: timestamp.optional(),
    revokedBy: z.string().optional(),
    uses: z.number().int().openapi({ description: 'How many approvals it gave.' }),
    lastUsedAt: timestamp.optional(),
    lastUsedBy: z.string().optional().openapi({ description: 'The last approval it gave (a workflow id).' }),
    status: z.enum(STATUSES).optional().openapi({ description: 'Its state when read (lists).' }),
  })
  .openapi('Grant');

export const grantBodySchema = z
  .strictObject({
    agentId: z.string().min(1).openapi({ description: 'The agent whose calls it covers.' }),
    toolName: z.string().min(1).openapi({ description: 'The tool it covers.' }),
    inputSchema: jsonSchemaObject.optional(),
    input: z.unknown().optional().openapi({ description: 'Only calls with exactly this input.' }),
    sessionId: z.string().min(1).optional().openapi({ description: 'Only calls of this session.' }),
    expireAfter: z
      .union([
        z.string().regex(/^(\d+(ms|s|m|h|d))+$/),
        // The bound is documented so that the document states every number the schema takes; the grant rules
        // refuse what passes it but breaks the operator's cap (403), for text and numbers alike.
        z.number().int().positive().openapi({ maximum: MAX_POLICY_DURATION_MS }),
      ])
      .optional()
      .openapi({ description: 'How long it lasts: `30m`, `8h`, `7d`, or milliseconds.' }),
    expiresAt: timestamp.optional().openapi({ description: 'Until when it lasts.' }),
    note: z.string().max(1000).optional(),
    grantedWith: z.string().min(1).optional().openapi({ description: 'The approval it is granted with.' }),
  })
  .openapi('GrantRequest', {
    description:
      'A standing grant: one of `expireAfter` and `expiresAt` is required, within the operator’s `maxExpireAfter`; `inputSchema` or `input` narrows it. Who grants comes from your login.',
  });

export const revokeBodySchema = z
  .strictObject({ id: z.string().min(1).openapi({ description: 'The grant’s id.' }) })
  .openapi('RevokeGrantRequest');

export const grantListQuerySchema = z.object({
  agentId: z.string().min(1).optional().openapi({ description: 'Only this agent’s grants.' }),
  status: z.enum(STATUSES).optional(),
});

export const listGrantsRoute = createRoute({
  method: 'get',
  path: '/api/grants',
  operationId: 'listGrants',
  tags,
  summary: 'Standing grants, newest first: active, revoked and expired',
  security: SECURITY,
  request: { query: grantListQuerySchema },
  responses: {
    200: json(z.object({ grants: z.array(grantSchema) }).openapi('GrantList'), 'The grants.'),
    ...errors(...QUESTION_ERRORS),
  },
});

export const createGrantRoute = createRoute({
  method: 'post',
  path: '/api/grants',
  operationId: 'createGrant',
  tags,
  summary: 'Grant an agent a tool until an expiry: its covered calls are approved with no person',
  description:
    '403 `FORBIDDEN` when the operator’s grant policy forbids the tool or the expiry is past `maxExpireAfter`; 400 `INVALID_ARGS` naming the field for a request that breaks a grant rule (both `inputSchema` and `input`, both expiries or none, an expiry in the past).',
  security: SECURITY,
  request: { body: jsonBody(grantBodySchema) },
  responses: {
    200: json(grantSchema, 'The grant, in force.'),
    ...errors(...QUESTION_ERRORS, ...WITH_BODY),
  },
});

export const revokeGrantRoute = createRoute({
  method: 'post',
  path: '/api/grants/revoke',
  operationId: 'revokeGrant',
  tags,
  summary: 'Revoke a grant: it covers no call from now on',
  description: '409 `ALREADY_RESOLVED` names who revoked it, or when it expired.',
  security: SECURITY,
  request: { body: jsonBody(revokeBodySchema) },
  responses: {
    200: json(grantSchema, 'The revoked grant.'),
    ...errors(...QUESTION_ERRORS, ...WITH_BODY),
  },
});
