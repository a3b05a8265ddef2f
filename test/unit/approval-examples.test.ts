/**
 * The framework hooks' examples in docs/approvals.md are files, quoted verbatim (a `<!-- example: <path> -->`
 * line, then a blank one, before each block names its file), so they cannot rot:
 *
 * - test/consumers/approval-examples/*.ts (AI SDK 6 `durableApprovalAiTool` and `resolveAiToolApprovals`, the
 *   OpenAI Agents SDK's two hooks) type-check here, against the sources under the package's entry names, with
 *   this project's `ai` 6 and `@openai/agents`;
 * - test/consumers/ai-sdk-7/approval-policy-example.ts (`aiToolApprovalPolicy`, AI SDK 7 only) type-checks in
 *   the AI SDK 7 project that test/e2e/ai-sdk-7.test.ts installs;
 * - test/consumers/claude-agent-sdk/can-use-tool-example.ts (`claudeCanUseTool` in `query()`) type-checks in the
 *   project with the Claude Agent SDK that test/e2e/claude-agent-sdk-types.test.ts installs.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import ts from 'typescript';

const root = path.resolve(__dirname, '../..');
const DOCUMENT = 'docs/approvals.md';

/** Where each hook's example lives, and the hooks it shows. */
const EXAMPLES: Record<string, readonly string[]> = {
  'test/consumers/approval-examples/ai-sdk-tool.ts': ['durableApprovalAiTool'],
  'test/consumers/approval-examples/ai-sdk-messages.ts': ['resolveAiToolApprovals'],
  'test/consumers/ai-sdk-7/approval-policy-example.ts': ['aiToolApprovalPolicy'],
  'test/consumers/approval-examples/openai-agents.ts': ['withDurableApproval', 'resolveInterruptions'],
  'test/consumers/claude-agent-sdk/can-use-tool-example.ts': ['claudeCanUseTool'],
};

/** Each `<!-- example: path -->` of the document, with the ```ts block that follows it. */
function quotedExamples(): Map<string, string> {
  const text = fs.readFileSync(path.join(root, DOCUMENT), 'utf8');
  const quoted = new Map<string, string>();
  for (const match of text.matchAll(/^<!-- example: (\S+) -->\n\n```ts\n([\s\S]*?)^```$/gm)) {
    quoted.set(match[1] ?? '', match[2] ?? '');
  }
  return quoted;
}

/** Type-checks `files` with the project's options, the package's entries mapped to their sources. */
function diagnosticsOf(files: readonly string[]): { program: ts.Program; texts: string[] } {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  assert.ok(config !== undefined, 'tsconfig.json could not be read');
  const entry = (file: string): string[] => [path.join(root, 'src', file)];
  const options: ts.CompilerOptions = {
    ...config.options,
    noEmit: true,
    paths: {
      'durable-ask-user': entry('index.ts'),
      'durable-ask-user/ai': entry('ai.ts'),
      'durable-ask-user/openai-agents': entry('openai-agents.ts'),
    },
  };
  const program = ts.createProgram({ rootNames: files.map((file) => path.join(root, file)), options });
  const texts = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (diagnostic.file === undefined || diagnostic.start === undefined) return message;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${path.relative(root, diagnostic.file.fileName)}:${line + 1}: ${message}`;
  });
  return { program, texts };
}

describe(`the framework hooks' examples in ${DOCUMENT}`, () => {
  const quoted = quotedExamples();

  test('every hook has an example, and each quotes its file verbatim', () => {
    assert.deepEqual([...quoted.keys()].sort(), Object.keys(EXAMPLES).sort());
    for (const [file, hooks] of Object.entries(EXAMPLES)) {
      const code = fs.readFileSync(path.join(root, file), 'utf8');
      assert.equal(quoted.get(file), code, `${DOCUMENT} quotes ${file} as it is`);
      for (const hook of hooks) assert.ok(code.includes(`${hook}(`), `${file} calls ${hook}`);
    }
  });

  test('the AI SDK 6 and OpenAI Agents examples type-check against the sources', () => {
    const files = Object.keys(EXAMPLES).filter((file) =>
      file.startsWith('test/consumers/approval-examples/'),
    );
    const { program, texts } = diagnosticsOf(files);
    assert.deepEqual(texts, []);
    // The entries resolved to the sources, not to a build that may be stale or absent.
    assert.ok(program.getSourceFile(path.join(root, 'src', 'openai-agents.ts')) !== undefined);
    assert.ok(program.getSourceFile(path.join(root, 'src', 'ai.ts')) !== undefined);
  });

  test('the checker has teeth: an example with a wrong option fails', () => {
    const wrong = path.join(root, 'test', 'consumers', 'approval-examples', 'ai-sdk-tool.ts');
    const code = fs.readFileSync(wrong, 'utf8').replace("toolName: 'deploy',", "toolNam: 'deploy',");
    assert.notEqual(code, fs.readFileSync(wrong, 'utf8'));
    const { texts } = diagnosticsOfText(wrong, code);
    assert.ok(
      texts.some((text) => text.includes("'toolNam'")),
      texts.join('\n'),
    );
  });

  test('the AI SDK 7 and Claude examples are in the projects their tests install and type-check', () => {
    const installed: Record<string, string> = {
      'test/consumers/ai-sdk-7/': 'test/e2e/ai-sdk-7.test.ts',
      'test/consumers/claude-agent-sdk/': 'test/e2e/claude-agent-sdk-types.test.ts',
    };
    for (const file of Object.keys(EXAMPLES).filter((name) => !name.includes('/approval-examples/'))) {
      const folder = Object.keys(installed).find((prefix) => file.startsWith(prefix));
      assert.ok(folder !== undefined, `${file} is in no installed project`);
      assert.ok(fs.existsSync(path.join(root, installed[folder]!)), `${installed[folder]} exists`);
    }
  });
});

/** As {@link diagnosticsOf} for one file whose text is `code` instead of what the disk holds. */
function diagnosticsOfText(fileName: string, code: string): { texts: string[] } {
  const readFile = ts.sys.readFile.bind(ts.sys);
  ts.sys.readFile = (name, encoding) => (path.resolve(name) === fileName ? code : readFile(name, encoding));
  try {
    return diagnosticsOf([path.relative(root, fileName)]);
  } finally {
    ts.sys.readFile = readFile;
  }
}
