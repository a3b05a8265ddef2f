/**
 * Links into the inbox page. Dependency-free: the webhook activities build them without loading the server.
 */

/**
 * The page's address of one question: `<inbox URL>#/q/<workflow id, encoded>`. The question's part is in the
 * fragment, which browsers never send to the server, so a link that is forwarded leaks nothing but the id.
 *
 * @example
 * inboxLink('https://inbox.example.com/', 'ask-user-question/agent-7/call-1');
 * // 'https://inbox.example.com/#/q/ask-user-question%2Fagent-7%2Fcall-1'
 */
export function inboxLink(inboxUrl: string, workflowId: string): string {
  const base = inboxUrl.replace(/#.*$/, '');
  return `${base.endsWith('/') ? base : `${base}/`}#/q/${encodeURIComponent(workflowId)}`;
}
