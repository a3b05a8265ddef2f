/** Waiting for Ctrl-C: what the commands that serve or watch until stopped share. */

/** Resolves on the first SIGINT or SIGTERM, and stops listening for both. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const handler = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
      resolve(signal);
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  });
}
