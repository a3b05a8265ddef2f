/**
 * A `deploy` tool call through `requireApproval`, as the grants tests make them: the tool returns what it ran
 * with, so a test reads from the result whether the call ran and with which input.
 */
import { randomUUID } from 'node:crypto';

import { questionWorkflowId } from '../../src/question/workflow-id';
import { requireApproval } from '../../src/tool';
import type { AskUserAgent, UserInteraction } from '../../src/types';

/** A call in flight: its approval's workflow id and what the model reads (`ran <input as JSON>` once run). */
export interface DeployCall {
  workflowId: string;
  result: Promise<string>;
}

/** Calls `deploy` with `input` as `agent` through `provider`, with a fresh tool call id. */
export function deployThroughApproval(
  provider: UserInteraction,
  agent: AskUserAgent,
  input: unknown,
): DeployCall {
  const toolCallId = `call-${randomUUID()}`;
  const tool = requireApproval(
    { name: 'deploy', execute: async (approved: unknown) => `ran ${JSON.stringify(approved)}` },
    { userInteraction: provider },
  );
  const result = tool.execute(input, { toolCallId, agent });
  // Awaited by the test when it asserts the result; this keeps a refusal it does not await from being unhandled.
  result.catch(() => undefined);
  return { workflowId: questionWorkflowId({ agent, toolCallId }, randomUUID), result };
}
