/**
 * The stdio transport, kept beside the HTTP one so that the MCP SDK is this package's dependency alone: the CLI
 * serves over either without importing the SDK itself.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

/** Connects `server` to this process's stdin and stdout; resolves once it listens. */
export async function connectMcpOverStdio(server: Server): Promise<void> {
  await server.connect(new StdioServerTransport());
}
