/**
 * README.md, docs/*.md and each package's packages/<directory>/README.md hold code and figures a reader copies;
 * each is held here so the documents cannot rot: every ```ts block type-checks against the sources, every
 * ```json block parses, every command in a ```sh block or an inline `ask-user ...` names a real command,
 * option, npm script or workflow message, every relative link points at a file (and heading) that exists, the
 * README's worked example produces exactly the answer text it shows, the figures it quotes for `npm run schema`
 * are the measured ones, and each package's README names its install line and its entries.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import ts from 'typescript';
import { PACKAGES, type PackageLayout } from '../../packages/layout';
import { TOOL_TOKEN_BUDGET, measureToolForms, measureToolSchema } from '../../scripts/print-schema';
import { COMMAND_SPECS } from '../../src/cli/command-specs';
import { createAskUserQuestionTool } from '../../src/tool';
import type { AskUserQuestionRequest } from '../../src/types';
import {
  answerSignal,
  decideUpdate,
  declineUpdate,
  extendDeadlineUpdate,
  getQuestionQuery,
  submitAnswerUpdate,
} from '../../src/workflow';

const root = path.resolve(__dirname, '../..');

interface Document {
  /** The path from the project root, with `/`: `README.md`, `docs/design.md`, `packages/agent/README.md`. */
  name: string;
  text: string;
}

interface Manifest {
  name: string;
  files?: string[];
  exports?: Record<string, { types: string; default: string } | string>;
}

/** Each package's manifest, packages/<directory>/package.json, in the layout's order. */
const manifests: { layout: PackageLayout; manifest: Manifest }[] = PACKAGES.map((layout) => ({
  layout,
  manifest: JSON.parse(
    fs.readFileSync(path.join(root, 'packages', layout.directory, 'package.json'), 'utf8'),
  ) as Manifest,
}));

/** The README npm shows for a package. */
const packageReadme = (layout: PackageLayout): string => `packages/${layout.directory}/README.md`;

/** README.md first, then every docs/*.md, sorted, then each package's README that exists, in layout order. */
const documents: Document[] = [
  'README.md',
  ...fs
    .readdirSync(path.join(root, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => `docs/${file}`),
  ...PACKAGES.map(packageReadme).filter((name) => fs.existsSync(path.join(root, name))),
].map((name) => ({ name, text: fs.readFileSync(path.join(root, name), 'utf8') }));
const readme = documents[0]?.text ?? '';

interface Fence {
  document: string;
  language: string;
  code: string;
  /** 1-based line of the opening fence in its document. */
  line: number;
}

/** Every fenced code block (```lang ... ```) of a document, in order. */
function fences(document: Document): Fence[] {
  const found: Fence[] = [];
  const pattern = /^```([\w-]*)[^\n]*\n([\s\S]*?)^```[ \t]*$/gm;
  for (const match of document.text.matchAll(pattern)) {
    const line = document.text.slice(0, match.index).split('\n').length;
    found.push({ document: document.name, language: match[1] ?? '', code: match[2] ?? '', line });
  }
  return found;
}

/** A document's prose: its fenced blocks blanked out (line numbers kept). */
function prose(document: Document): string {
  return document.text.replace(/^```[^\n]*\n[\s\S]*?^```[ \t]*$/gm, (block) => block.replace(/[^\n]/g, ''));
}

const allFences = documents.flatMap(fences);
const readmeFences = allFences.filter((fence) => fence.document === 'README.md');
/**
 * A block that quotes a whole example file (`<!-- example: <path> -->` and a blank line before it): it is checked
 * as that file, in the project its framework needs, by test/unit/approval-examples.test.ts.
 */
function quotesExampleFile(fence: Fence): boolean {
  const lines = documents.find((candidate) => candidate.name === fence.document)?.text.split('\n') ?? [];
  return lines[fence.line - 2] === '' && /^<!-- example: \S+ -->$/.test(lines[fence.line - 3] ?? '');
}
const tsBlocks = allFences.filter(
  (fence) => (fence.language === 'ts' || fence.language === 'typescript') && !quotesExampleFile(fence),
);
const where = (fence: Fence): string => `${fence.document} line ${fence.line}`;

/**
 * Turns a snippet into a module the compiler accepts, the same way for every snippet.
 *
 * Snippets are written as a reader sees them in place: imports, then code that may use the surrounding
 * agent's variables (`questions`, `toolCallId`), top-level `await` and a top-level `return` (the agent
 * workflow's body). So the imports stay at the top of the module and everything else becomes the body of
 * `snippet(questions, toolCallId)`. The body runs in an inner function of its own, so a snippet that declares
 * its own `questions` or `toolCallId` shadows the parameter instead of clashing with it. A snippet that needs
 * another free variable fails here with "Cannot find name": add it as a parameter.
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
 * as the documents', so a checker that reports nothing at all (for example because `durable-ask-user` did not
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
 * Every entry of every package's "exports" mapped to its source (`durable-ask-user/ai`: `./dist/ai.d.ts` is
 * `src/ai.ts`; `@durable-ask-user/worker`: `./dist/worker/index.d.ts` is `src/worker/index.ts`), so snippets
 * import the packages by name without a build: a checkout has no `dist/` until `npm run build`. The
 * `./internal/*` entries are left out: they are for the sibling packages, so a snippet must not use them.
 */
function entrySources(): Record<string, string[]> {
  const paths: Record<string, string[]> = {};
  for (const { layout, manifest } of manifests) {
    for (const [entry, target] of Object.entries(manifest.exports ?? {})) {
      if (typeof target === 'string' || entry.includes('*')) continue;
      const source = /^\.\/dist\/(.+)\.d\.ts$/.exec(target.types)?.[1];
      assert.ok(
        source !== undefined,
        `packages/${layout.directory}/package.json exports ${entry}: types ${target.types} is not in dist/`,
      );
      paths[path.posix.join(manifest.name, entry)] = [path.join(root, 'src', `${source}.ts`)];
    }
  }
  return paths;
}

/**
 * Type-checks snippets as modules of this project: the project's compiler options, with the package's entry
 * points mapped to their sources. The snippet files exist only in memory, beside the tests, so the project's
 * package.json (CommonJS) decides their module format as it would for a user's file.
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
    paths: entrySources(),
  };
  const files = new Map(
    snippets.map((code, index) => [path.join(root, 'test', `docs-snippet-${index}.ts`), wrapSnippet(code)]),
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

describe("the code blocks of README.md, docs/ and the packages' READMEs", () => {
  test('every code fence is sh, json or ts, so no code escapes the checks below', () => {
    assert.deepEqual(
      allFences
        .filter((fence) => !['sh', 'json', 'ts', 'typescript'].includes(fence.language))
        .map((fence) => `${where(fence)}: \`\`\`${fence.language}`),
      [],
    );
    const readmeTs = tsBlocks.filter((fence) => fence.document === 'README.md');
    assert.ok(readmeTs.length >= 2, `expected the README's TypeScript examples, found ${readmeTs.length}`);
  });

  test('no indented code blocks: every block is fenced, so it is checked', () => {
    const indented = documents.flatMap((document) =>
      prose(document)
        .split('\n')
        .flatMap((line, index, lines) =>
          /^ {4,}\S/.test(line) && (lines[index - 1] ?? '').trim() === ''
            ? [`${document.name} line ${index + 1}: ${line.trim()}`]
            : [],
        ),
    );
    assert.deepEqual(indented, []);
  });

  test('every json block parses', () => {
    for (const fence of allFences.filter((block) => block.language === 'json')) {
      assert.doesNotThrow(() => JSON.parse(fence.code), `${where(fence)} is not JSON`);
    }
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
    test(`${where(block)} type-checks: ${firstLine}`, () => {
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
    assert.ok(allFences.some((block) => block.code.includes("from 'durable-ask-user/workflow'")));
    assert.ok(program.getSourceFile(path.join(root, 'src', 'workflow.ts')) !== undefined);
  });

  test('the sibling packages resolve by name to their sources too', () => {
    assert.ok(program !== undefined);
    for (const [name, source] of [
      ['@durable-ask-user/worker', 'worker/index.ts'],
      ['@durable-ask-user/ops', 'inbox/index.ts'],
      ['durable-ask-user/ops', 'ops/index.ts'],
    ] as const) {
      assert.ok(
        tsBlocks.some((block) => block.code.includes(`from '${name}'`)),
        `no snippet imports ${name}`,
      );
      assert.ok(
        program.getSourceFile(path.join(root, 'src', source)) !== undefined,
        `${name}: src/${source}`,
      );
    }
  });
});

/** `'...'` and `"..."` removed, so that what a quoted argument says is not read as flags. */
function withoutQuotes(text: string): string {
  return text.replace(/'[^']*'|"[^"]*"/g, "''");
}

/**
 * Where the command's name stands in the words of a command line: `ask-user` (the bin of @durable-ask-user/cli,
 * also after `npx` or `npx -p @durable-ask-user/cli`), or `bin/ask-user.js` (what `node bin/ask-user.js` runs
 * in a checkout); -1 when the line runs something else.
 */
function askUserIndex(words: readonly string[]): number {
  if (words[0] === 'ask-user') return 0;
  if (words[0] === 'node' && words[1] === 'bin/ask-user.js') return 1;
  return words[0] === 'npx' ? words.indexOf('ask-user') : -1;
}

/** The `--flags` of an `ask-user` command line that are not options of that command; `[]` when all are. */
function unknownAskUserFlags(commandLine: string): string[] {
  const words = withoutQuotes(commandLine).trim().split(/\s+/);
  const at = askUserIndex(words);
  // `npx` finds the bin only in the package that has it: no other package may be named for it.
  const named = words
    .slice(0, at)
    .filter((word, index) => ['-p', '--package'].includes(words[index - 1] ?? ''));
  const wrongPackage = named
    .filter((name) => name !== '@durable-ask-user/cli')
    .map((name) => `ask-user is the command of @durable-ask-user/cli, not of ${name}`);
  const command = words[at + 1] ?? '';
  const spec = (COMMAND_SPECS as Record<string, { options: Record<string, unknown> } | undefined>)[command];
  if (spec === undefined) return [...wrongPackage, `unknown command "ask-user ${command}"`];
  return [
    ...wrongPackage,
    ...[...withoutQuotes(words.slice(at).join(' ')).matchAll(/--([a-z][\w-]*)/g)]
      .map((match) => match[1] ?? '')
      .filter((flag) => flag !== 'help' && !Object.hasOwn(spec.options, flag))
      .map((flag) => `ask-user ${command} has no --${flag}`),
  ];
}

const scripts = Object.keys(
  (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: object }).scripts,
);
const messageNames = [
  answerSignal,
  submitAnswerUpdate,
  decideUpdate,
  declineUpdate,
  extendDeadlineUpdate,
  getQuestionQuery,
].map((definition) => definition.name);

/** What is wrong with one shell command (one side of `&&`), or `[]`. */
function checkShellCommand(command: string): string[] {
  const words = withoutQuotes(command).trim().split(/\s+/);
  if (askUserIndex(words) >= 0) return unknownAskUserFlags(command);
  if (words[0] === 'npm') {
    const script = words[1] === 'run' ? words[2] : words[1];
    if (script === 'install' || script === 'ci') return [];
    return script !== undefined && scripts.includes(script) ? [] : [`no npm script "${script}"`];
  }
  if (words[0] === 'temporal' && words[1] === 'workflow') {
    const name = words[words.indexOf('--name') + 1];
    return words.includes('--name') && !messageNames.includes(name ?? '')
      ? [`the question workflow has no message "${name}"`]
      : [];
  }
  return [];
}

describe("the commands in README.md, docs/ and the packages' READMEs", () => {
  test('every ask-user, npm and temporal command in a sh block is real', () => {
    const problems = allFences
      .filter((fence) => fence.language === 'sh')
      .flatMap((fence) =>
        fence.code.split('\n').flatMap((line, index) =>
          withoutQuotes(line)
            .replace(/\s#.*$/, '')
            .split('&&')
            .flatMap(checkShellCommand)
            .map((problem) => `${fence.document} line ${fence.line + 1 + index}: ${problem}`),
        ),
      );
    assert.deepEqual(problems, []);
  });

  test('every inline `ask-user ...` names a command and its options', () => {
    const problems = documents.flatMap((document) =>
      [...prose(document).matchAll(/`((?:npx (?:-p \S+ )?|node bin\/)?ask-user(?:\.js)? [^`]+)`/g)].flatMap(
        (match) =>
          unknownAskUserFlags(match[1] ?? '').map(
            (problem) => `${document.name}: \`${match[1]}\`: ${problem}`,
          ),
      ),
    );
    assert.deepEqual(problems, []);
  });
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchors(document: Document): Set<string> {
  return new Set([...prose(document).matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1] ?? '')));
}

/**
 * Where a path of the repository comes from: `packages/<directory>/docs/...` is the project's `docs/...` for a
 * package whose manifest ships `docs` (scripts/assemble-packages.js copies it there at build), so its README
 * links into the docs it carries; any other path is itself.
 */
function sourceOfShipped(file: string): string {
  for (const { layout, manifest } of manifests) {
    const shipped = `packages/${layout.directory}/docs/`;
    if (
      (manifest.files ?? []).includes('docs') &&
      (file === shipped.slice(0, -1) || file.startsWith(shipped))
    ) {
      return `docs/${file.slice(shipped.length)}`;
    }
  }
  return file;
}

describe("the links of README.md, docs/ and the packages' READMEs", () => {
  test('every relative link points at a file of the repository, and at a heading it has', () => {
    const problems: string[] = [];
    for (const document of documents) {
      const text = prose(document).replace(/`[^`\n]*`/g, '');
      for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1] ?? '';
        if (/^[a-z]+:/i.test(target)) continue;
        const [file = '', anchor] = target.split('#');
        const resolved = sourceOfShipped(
          file === '' ? document.name : path.posix.join(path.posix.dirname(document.name), file),
        );
        if (!fs.existsSync(path.join(root, resolved))) {
          problems.push(`${document.name}: ${target}: no file ${resolved}`);
          continue;
        }
        if (anchor === undefined) continue;
        const linked = documents.find((candidate) => candidate.name === resolved);
        if (linked === undefined || !anchors(linked).has(anchor)) {
          problems.push(`${document.name}: ${target}: no heading #${anchor} in ${resolved}`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  test('no reference to a document that is not in the repository', () => {
    for (const document of documents) {
      assert.doesNotMatch(document.text, /§|\bCONTRACT\b|\bthe (public )?contract\b/i, document.name);
    }
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

describe('the entries the READMEs name', () => {
  /** A package's public entries (`.`, `./workflow` …): its "exports" but the siblings' `./internal/*`. */
  const publicEntries = (manifest: Manifest): string[] =>
    Object.keys(manifest.exports ?? {}).filter((entry) => !entry.includes('*') && entry !== './package.json');

  test('the API section names every entry of the agent package\'s "exports"', () => {
    const agent = manifests.find(({ manifest }) => manifest.name === 'durable-ask-user')?.manifest;
    assert.ok(agent !== undefined, 'packages/layout.js has no durable-ask-user');
    const entries = publicEntries(agent)
      .filter((entry) => entry !== '.')
      .map((entry) => entry.slice(1));
    assert.ok(entries.includes('/workflow') && entries.includes('/claude'), entries.join(' '));
    const start = readme.indexOf('\n## API\n');
    const api = readme.slice(start, readme.indexOf('\n## ', start + 1));
    assert.deepEqual(
      entries.filter((entry) => !api.includes(`\`${entry}\``)),
      [],
    );
  });

  test('the README says which package each role installs', () => {
    const start = readme.indexOf('\n### Install by role\n');
    assert.ok(start >= 0, 'README.md has no "Install by role"');
    const section = readme.slice(start, readme.indexOf('\n## ', start));
    // The name as a whole: `durable-ask-user` inside `@durable-ask-user/worker` does not count.
    const names = (name: string): RegExp => new RegExp(`(?<![\\w@/-])${name}(?![\\w/-])`);
    assert.deepEqual(
      PACKAGES.map((layout) => layout.name).filter((name) => !names(name).test(section)),
      [],
    );
  });

  for (const { layout, manifest } of manifests) {
    test(`${packageReadme(layout)} installs ${manifest.name} and names each of its entries`, () => {
      const document = documents.find((candidate) => candidate.name === packageReadme(layout));
      assert.ok(document !== undefined, `${packageReadme(layout)} is missing`);
      assert.match(document.text, new RegExp(`^npm install ${manifest.name}$`, 'm'));
      assert.deepEqual(
        publicEntries(manifest)
          .map((entry) => path.posix.join(manifest.name, entry))
          .filter((name) => !document.text.includes(`'${name}'`) && !document.text.includes(`\`${name}\``)),
        [],
      );
    });
  }
});

/**
 * The README is the one place that quotes the measured figures of `npm run schema` (docs/ link to it), so a
 * change to the tool's description or schema updates one paragraph, and this test says which numbers.
 */
describe('the figures the README gives for npm run schema', () => {
  const size = measureToolSchema();
  const forms = measureToolForms();
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

  test("the adapters' forms and their budgets", () => {
    const match =
      /its own budget \((\d+) and (\d+)\):\s+OpenAI strict mode (\d+) tokens, the MCP\s+listing (\d+) tokens/.exec(
        readme,
      );
    assert.ok(match, "README.md no longer states the adapters' figures in the expected form");
    const form = (label: string): { tokens: number; budget: number } => {
      const found = forms.find((candidate) => candidate.label === label);
      assert.ok(found !== undefined, `npm run schema measures no "${label}" form`);
      return { tokens: found.total.tokens, budget: found.budget };
    };
    const strict = form('OpenAI strict');
    const mcp = form('MCP listing');
    assert.deepEqual(match.slice(1).map(number), [strict.budget, mcp.budget, strict.tokens, mcp.tokens]);
  });

  test('no other document quotes a token count', () => {
    for (const document of documents.slice(1)) {
      assert.doesNotMatch(document.text, /\d+ tokens\b/, `${document.name} quotes token figures`);
    }
  });
});
