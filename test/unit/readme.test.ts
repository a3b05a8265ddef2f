/**
 * README.md holds code and figures a reader copies; each is held here so the README cannot rot:
 * every ```ts block type-checks against the sources, the worked example's request produces exactly the
 * answer text the README shows, and the figures quoted for `npm run schema` are the measured ones.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import ts from 'typescript';
import { TOOL_TOKEN_BUDGET, measureToolSchema } from '../../scripts/print-schema';
import { createAskUserQuestionTool } from '../../src/tool';
import type { AskUserQuestionRequest } from '../../src/types';

const root = path.resolve(__dirname, '../..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

interface Fence {
  language: string;
  code: string;
  /** 1-based line of the opening fence in README.md. */
  line: number;
}

/** Every fenced code block (```lang ... ```) in README.md, in order. */
function fences(markdown: string): Fence[] {
  const found: Fence[] = [];
  const pattern = /^```([\w-]*)[^\n]*\n([\s\S]*?)^```[ \t]*$/gm;
  for (const match of markdown.matchAll(pattern)) {
    const line = markdown.slice(0, match.index).split('\n').length;
    found.push({ language: match[1] ?? '', code: match[2] ?? '', line });
  }
  return found;
}

const readmeFences = fences(readme);
const tsBlocks = readmeFences.filter((fence) => fence.language === 'ts' || fence.language === 'typescript');

/**
 * Turns a README snippet into a module the compiler accepts, the same way for every snippet.
 *
 * README snippets are written as a reader sees them in place: imports, then code that may use the
 * surrounding agent's variables (`questions`, `toolCallId`), top-level `await` and a top-level `return`
 * (the agent workflow's body). So the imports stay at the top of the module and everything else becomes the
 * body of `snippet(questions, toolCallId)`. The body runs in an inner function of its own, so a snippet
 * that declares its own `questions` or `toolCallId` shadows the parameter instead of clashing with it.
 * A snippet that needs another free variable fails here with "Cannot find name": add it as a parameter.
 */
function wrapSnippet(code: string): string {
  const source = ts.createSourceFile('snippet.ts', code, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const imports: string[] = [];
  const body: string[] = [];
  for (const statement of source.statements) {
    const text = code.slice(statement.getFullStart(), statement.getEnd());
    (ts.isImportDeclaration(statement) ? imports : body).push(text);
  }
  return [
    ...imports,
    '',
    'export async function snippet(',
    "  questions: import('durable-ask-user').AskUserQuestion[],",
    '  toolCallId: string,',
    '): Promise<unknown> {',
    '  return (async () => {',
    ...body,
    '  })();',
    '}',
    '',
  ].join('\n');
}

/**
 * A snippet with a known type error (the provider lacks `ask`). It goes through the same wrapping and program
 * as the README's, so a checker that reports nothing at all (for example because `durable-ask-user` did not
 * resolve to the sources) fails the control test instead of passing every snippet.
 */
const CONTROL_SNIPPET = `import { createAskUserQuestionTool } from 'durable-ask-user';

const tool = createAskUserQuestionTool({ userInteraction: {} });
return await tool.execute({ questions }, { toolCallId });
`;

interface CheckedSnippet {
  fileName: string;
  wrapped: string;
  diagnostics: readonly ts.Diagnostic[];
}

/**
 * Type-checks snippets as modules of this project: the project's compiler options, with the package's two
 * entry points mapped to their sources. The snippet files exist only in memory, beside the tests, so the
 * project's package.json (CommonJS) decides their module format as it would for a user's file.
 */
function typeCheck(snippets: string[]): { checked: CheckedSnippet[]; program: ts.Program } {
  const configPath = path.join(root, 'tsconfig.json');
  const config = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  assert.ok(config !== undefined, 'tsconfig.json could not be read');
  const options: ts.CompilerOptions = {
    ...config.options,
    noEmit: true,
    paths: {
      'durable-ask-user': [path.join(root, 'src', 'index.ts')],
      'durable-ask-user/workflow': [path.join(root, 'src', 'workflow.ts')],
      'durable-ask-user/ai': [path.join(root, 'src', 'ai.ts')],
    },
  };
  const files = new Map(
    snippets.map((code, index) => [path.join(root, 'test', `readme-snippet-${index}.ts`), wrapSnippet(code)]),
  );
  for (const fileName of files.keys()) assert.equal(fs.existsSync(fileName), false, `${fileName} exists`);

  // The real host, except that the snippet files are served from memory.
  const disk = ts.createCompilerHost(options, true);
  const host: ts.CompilerHost = {
    ...disk,
    getSourceFile: (fileName, languageVersion, ...rest) => {
      const text = files.get(path.resolve(fileName));
      return text === undefined
        ? disk.getSourceFile(fileName, languageVersion, ...rest)
        : ts.createSourceFile(fileName, text, languageVersion, true);
    },
    fileExists: (fileName) => files.has(path.resolve(fileName)) || disk.fileExists(fileName),
    readFile: (fileName) => files.get(path.resolve(fileName)) ?? disk.readFile(fileName),
  };

  const program = ts.createProgram({ rootNames: [...files.keys()], options, host });
  const checked = [...files].map(([fileName, wrapped]) => {
    const sourceFile = program.getSourceFile(fileName);
    assert.ok(sourceFile !== undefined, `${fileName} is not in the program`);
    return {
      fileName,
      wrapped,
      diagnostics: [
        ...program.getSyntacticDiagnostics(sourceFile),
        ...program.getSemanticDiagnostics(sourceFile),
      ],
    };
  });
  return { checked, program };
}

function describeDiagnostics(snippet: CheckedSnippet): string {
  const lines = snippet.wrapped.split('\n');
  const messages = snippet.diagnostics.map((diagnostic) => {
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (diagnostic.file === undefined || diagnostic.start === undefined)
      return `TS${diagnostic.code}: ${text}`;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `TS${diagnostic.code} at \`${lines[line]?.trim()}\`: ${text}`;
  });
  return `${messages.join('\n')}\n--- as compiled:\n${snippet.wrapped}`;
}

describe('the README code blocks', () => {
  test('every code fence is sh, json or ts, so no code escapes the checks below', () => {
    assert.deepEqual(
      readmeFences.filter((fence) => !['sh', 'json', 'ts', 'typescript'].includes(fence.language)),
      [],
    );
    assert.ok(tsBlocks.length >= 2, `expected the README's TypeScript examples, found ${tsBlocks.length}`);
  });

  let checked: CheckedSnippet[] = [];
  let control: CheckedSnippet | undefined;
  let program: ts.Program | undefined;
  before(() => {
    const result = typeCheck([...tsBlocks.map((block) => block.code), CONTROL_SNIPPET]);
    control = result.checked.pop();
    checked = result.checked;
    program = result.program;
  });

  test('the checker reports a wrong snippet, against the sources under the package name', () => {
    assert.ok(control !== undefined && program !== undefined);
    assert.deepEqual(
      control.diagnostics.map((diagnostic) => diagnostic.code),
      [2741],
      describeDiagnostics(control),
    );
    assert.match(
      ts.flattenDiagnosticMessageText(control.diagnostics[0]?.messageText, '\n'),
      /Property 'ask' is missing in type '\{\}'/,
    );
    assert.ok(program.getSourceFile(path.join(root, 'src', 'index.ts')) !== undefined);
  });

  for (const [index, block] of tsBlocks.entries()) {
    const firstLine = block.code.split('\n')[0] ?? '';
    test(`README.md line ${block.line} type-checks: ${firstLine}`, () => {
      const snippet = checked[index];
      assert.ok(snippet !== undefined, 'the snippet was not compiled');
      assert.deepEqual(
        snippet.diagnostics.map((diagnostic) => diagnostic.code),
        [],
        describeDiagnostics(snippet),
      );
    });
  }

  test('the workflow example compiles against the workflow-safe entry', () => {
    assert.ok(program !== undefined);
    assert.ok(tsBlocks.some((block) => block.code.includes("from 'durable-ask-user/workflow'")));
    assert.ok(program.getSourceFile(path.join(root, 'src', 'workflow.ts')) !== undefined);
  });
});

describe('the README worked example', () => {
  const jsonBlocks = readmeFences
    .filter((fence) => fence.language === 'json')
    .map((fence) => ({ fence, value: JSON.parse(fence.code) as Record<string, unknown> }));
  const withKey = (key: string): unknown => {
    const found = jsonBlocks.filter(({ value }) => key in value);
    assert.equal(found.length, 1, `expected one json block with "${key}" in README.md`);
    return found[0]?.value;
  };

  test('the request it shows produces exactly the answer text it shows', async () => {
    const request = withKey('questions');
    const answer = withKey('answers');
    const asked: AskUserQuestionRequest[] = [];
    const tool = createAskUserQuestionTool({
      userInteraction: {
        ask: async (question) => {
          asked.push(question);
          return answer as never;
        },
      },
    });

    const text = await tool.execute(request, { toolCallId: 'readme-example' });

    assert.equal(text, JSON.stringify(answer));
    assert.deepEqual(
      asked.map(({ questions }) => questions.map((question) => [question.id, question.multiSelect])),
      [
        [
          ['env', undefined],
          ['checks', true],
          ['note', undefined],
        ],
      ],
    );
  });
});

describe('the figures the README gives for npm run schema', () => {
  const size = measureToolSchema();
  const number = (text: string): number => Number(text.replaceAll(',', ''));

  test('name + description + JSON Schema = total tokens (characters), and the budget', () => {
    const match =
      /name\s+(\d+)\s+\+\s+description\s+(\d+)\s+\+\s+JSON Schema\s+(\d+)\s+=\s+\*\*(\d+) tokens\*\*\s+\(([\d,]+) characters\)/.exec(
        readme,
      );
    assert.ok(match, 'README.md no longer states the schema figures in the expected form');
    assert.deepEqual(match.slice(1).map(number), [
      size.parts.name.tokens,
      size.parts.description.tokens,
      size.parts.parameters.tokens,
      size.total.tokens,
      size.total.characters,
    ]);
    const budget = /The budget is (\d+);/.exec(readme);
    assert.ok(budget, 'README.md no longer states the token budget');
    assert.equal(number(budget[1] ?? ''), TOOL_TOKEN_BUDGET);
  });

  test('the benchmark table row for the tool schema', () => {
    const match = /\|\s*tool schema\s*\|\s*([\d,]+) characters, (\d+) tokens\s*\|/.exec(readme);
    assert.ok(match, 'README.md has no "tool schema" row in its benchmark table');
    assert.deepEqual(match.slice(1).map(number), [size.total.characters, size.total.tokens]);
  });
});
