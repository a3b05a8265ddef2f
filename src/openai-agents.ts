/**
 * `durable-ask-user/openai-agents`: durable approvals for the OpenAI Agents SDK (`@openai/agents`, an optional
 * peer dependency): `resolveInterruptions` turns a run's interruptions into durable approvals and applies the
 * decisions to its `RunState`; `withDurableApproval` makes a function tool wait for its decision inside
 * `execute`.
 *
 * Only the SDK's types are imported, so this entry loads no SDK code and no `@temporalio/*` module; the caller's
 * own `tool()` and `run()` build and run, and the durable provider is passed in.
 */
export { editedCallText } from './tool/require-approval';
export {
  resolveInterruptions,
  type InterruptedRun,
  type ResolveInterruptionsOptions,
} from './adapters/openai-agents-interruptions';
export {
  withDurableApproval,
  type AgentsToolCallDetails,
  type DurableApprovalOptions,
} from './adapters/openai-agents-tool';
