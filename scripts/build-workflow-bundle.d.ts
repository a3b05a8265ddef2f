/**
 * Bundles the workflows of `workflowsPath` with `payloadConverterPath`, preloading the modules they import from
 * outside their folder (of `root`): evaluated once per worker, not once per workflow. Returns the code and the
 * paths preloaded.
 */
export function bundleWithPreloads(options: {
  workflowsPath: string;
  payloadConverterPath: string;
  root: string;
}): Promise<{ code: string; preloaded: string[] }>;
