/**
 * Progress while an MCP call waits for a human. Clients time requests out (60 s by default in the SDKs); one
 * that sets `resetTimeoutOnProgress` keeps waiting as long as progress arrives.
 */
import type { McpRequestExtra } from './mcp-tool-call';

/**
 * Sends `notifications/progress` every `intervalMs` while a call waits, when the client asked for progress (gave
 * a progress token). `progress` counts the notifications (it must increase); the message says how long the call
 * has waited. Returns the function that stops them.
 */
export function startProgress(
  request: Pick<McpRequestExtra['mcpReq'], '_meta' | 'notify'>,
  intervalMs: number,
): () => void {
  const progressToken = request._meta?.progressToken;
  if (progressToken === undefined) return () => undefined;
  const startedAt = Date.now();
  let progress = 0;
  const timer = setInterval(() => {
    progress += 1;
    const waited = Math.round((Date.now() - startedAt) / 1000);
    request
      .notify({
        method: 'notifications/progress',
        params: { progressToken, progress, message: `waiting for the human to answer (${waited}s)` },
      })
      .catch(() => undefined); // a closed connection: the call is detached or cancelled already
  }, intervalMs);
  return () => clearInterval(timer);
}
