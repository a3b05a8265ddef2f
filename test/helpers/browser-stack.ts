/**
 * The stack the inbox browser tests (test/browser/) run on: a dev server, an ask-user worker on `taskQueue`, the
 * test inbox, the durable provider an agent asks through, and the headless browser from ./browser.ts; with the
 * login that every page of those tests starts from.
 */
import type { Browser, Page } from 'playwright-core';

import type { InboxServer } from '../../src/inbox';
import { TemporalUserInteraction, type TemporalUserInteractionOptions } from '../../src/provider';
import { launchBrowser } from './browser';
import { INBOX_TOKEN, startTestInbox } from './inbox';
import { startDevServerWithClient, type DevServerWithClient } from './temporal';
import { startAskUserWorker, type RunningWorkers } from './workers';

/** A running {@link startBrowserStack}. */
export interface BrowserStack {
  stack: DevServerWithClient;
  worker: RunningWorkers;
  inbox: InboxServer;
  provider: TemporalUserInteraction;
  browser: Browser;
  /**
   * A page in a browser context of its own, logged in to the inbox as `name` through the login form and on the
   * live queue. `watch` is called with the page before it loads, to listen to it (page errors, dialogs) from
   * the start.
   */
  logIn(name: string, watch?: (page: Page) => void): Promise<Page>;
  /** Closes the browser, the provider, the inbox and the worker, then stops the server. */
  stop(): Promise<void>;
}

/**
 * Starts the stack: the dev server named `name`, the worker and the provider on `taskQueue` (the provider with
 * `policy`), the inbox and the browser. What started before a failure is stopped before the failure is thrown.
 */
export async function startBrowserStack(
  name: string,
  taskQueue: string,
  policy?: TemporalUserInteractionOptions['policy'],
): Promise<BrowserStack> {
  const stack = await startDevServerWithClient(name);
  const started: Partial<Omit<BrowserStack, 'stack' | 'logIn' | 'stop'>> = {};
  const stop = async (): Promise<void> => {
    try {
      await started.browser?.close();
      await started.provider?.close();
      await started.inbox?.close();
      await started.worker?.stop();
    } finally {
      await stack.stop();
    }
  };
  try {
    started.worker = await startAskUserWorker(stack.server.address, taskQueue);
    started.inbox = await startTestInbox(stack.client);
    started.provider = new TemporalUserInteraction({
      client: stack.client,
      taskQueue,
      ...(policy === undefined ? {} : { policy }),
    });
    started.browser = await launchBrowser();
  } catch (error) {
    await stop();
    throw error;
  }
  const { worker, inbox, provider, browser } = started as Required<typeof started>;
  return {
    stack,
    worker,
    inbox,
    provider,
    browser,
    async logIn(userName, watch) {
      const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
      const page = await context.newPage();
      watch?.(page);
      await page.goto(`${inbox.url}#token=${encodeURIComponent(INBOX_TOKEN)}`);
      await page.locator('body[data-view="login"]').waitFor();
      await page.locator('#login-name').fill(userName);
      await page.locator('#login-form button[type=submit]').click();
      await page.locator('body[data-view="queue"][data-live="ready"]').waitFor();
      return page;
    },
    stop,
  };
}
