/**
 * `ask-user <command> --help`, `-h` and `ask-user help <command>`: every command's usage and options, made
 * from the same table the command parses with (src/cli/command-specs.ts), on stdout with exit 0, without
 * loading the SDK. A usage mistake is on stderr with exit 2 and the hint to the command's help. No Temporal
 * server: help and option errors are answered before any connection.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';

import { DEFAULT_MCP_AGENT_ID, DEFAULT_PROGRESS_INTERVAL_MS } from '../../src/mcp/mcp-server';
import { COMMAND_SPECS, type CommandSpec } from '../../src/cli/command-specs';
import { commandHelp, overview } from '../../src/cli/help';
import { CliUsageError, helpRequested, parse } from '../../src/cli/parse';
import { DEFAULT_INBOX_HOST, DEFAULT_INBOX_PORT } from '../../src/inbox/inbox-server';
import { AskUserError } from '../../src/interaction/ask-user-error';
import { killChildren, startChild } from '../fixtures/child-process';

const SPECS: readonly CommandSpec[] = Object.values(COMMAND_SPECS);

/** Nothing listens here: a command that got past its arguments would fail to connect, not hang or succeed. */
const NOWHERE = { TEMPORAL_ADDRESS: '127.0.0.1:1', ASK_USER_INBOX_TOKEN: '' };

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

after(() => killChildren());

/** Runs `ask-user <args>` to the end, optionally recording the modules it loaded into `modulesFile`. */
async function runCli(args: string[], modulesFile?: string): Promise<CliResult> {
  const preload = modulesFile === undefined ? [] : ['--require', './test/fixtures/record-loaded-modules.js'];
  const child = startChild(
    process.execPath,
    [...preload, './bin/ask-user.js', ...args],
    modulesFile === undefined ? NOWHERE : { ...NOWHERE, ASK_USER_LOADED_MODULES_FILE: modulesFile },
  );
  const { code } = await child.waitForExit();
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

describe('the option tables', () => {
  test('every command keeps its option names', () => {
    const names = Object.fromEntries(SPECS.map((spec) => [spec.name, Object.keys(spec.options)]));
    assert.deepEqual(names, {
      dev: ['db', 'port', 'ui-port', 'headless', 'inbox-port'],
      worker: [],
      ask: ['question', 'id', 'header', 'option', 'multi', 'args', 'agent', 'session', 'tool-call-id'],
      list: ['status', 'limit', 'page-token', 'json'],
      show: ['json'],
      answer: ['select', 'custom', 'as', 'group', 'json', 'all', 'tool', 'agent', 'same-as'],
      decline: ['reason', 'as', 'group', 'json'],
      approve: ['input', 'all', 'tool', 'agent', 'same-as', 'as', 'group', 'json'],
      deny: ['reason', 'stop', 'all', 'tool', 'agent', 'same-as', 'as', 'group', 'json'],
      respond: ['text', 'as', 'group', 'json'],
      extend: ['as', 'json'],
      mcp: ['http', 'agent', 'keep-on-cancel', 'ops', 'progress-interval', 'no-elicit', 'elicit-as'],
      inbox: ['port', 'host'],
      watch: ['json', 'interval'],
      audit: ['since', 'format'],
      grants: ['agent', 'status', 'json'],
      grant: [
        'agent',
        'tool',
        'input-schema',
        'input',
        'session',
        'expire-after',
        'expires-at',
        'note',
        'as',
        'group',
        'json',
      ],
      'revoke-grant': ['as', 'json'],
      help: [],
    });
    for (const spec of SPECS) assert.equal(COMMAND_SPECS[spec.name as keyof typeof COMMAND_SPECS], spec);
  });

  test('the defaults help shows are the ones the commands apply', () => {
    assert.equal(COMMAND_SPECS.inbox.options.port.default, String(DEFAULT_INBOX_PORT));
    assert.equal(COMMAND_SPECS.inbox.options.host.default, DEFAULT_INBOX_HOST);
    assert.equal(COMMAND_SPECS.mcp.options.agent.default, DEFAULT_MCP_AGENT_ID);
    assert.equal(
      COMMAND_SPECS.mcp.options['progress-interval'].default,
      String(DEFAULT_PROGRESS_INTERVAL_MS / 1000),
    );
  });

  test('parse reads what the table declares, repeatable options as lists, and refuses the rest', () => {
    const { values, positionals, literals } = parse(COMMAND_SPECS.answer, [
      'q/1',
      '--select',
      'a=Yes',
      '--select',
      'b=No',
      '--as',
      'alice',
      '--json',
    ]);
    assert.deepEqual(
      { values: { ...values }, positionals, literals },
      { values: { select: ['a=Yes', 'b=No'], as: 'alice', json: true }, positionals: ['q/1'], literals: [] },
    );
    assert.throws(() => parse(COMMAND_SPECS.answer, ['--help']), {
      name: 'CliUsageError',
      message: /^Unknown option '--help'/,
    });
    // Defaults are for help only: the commands apply them (some depend on other options).
    assert.deepEqual({ ...parse(COMMAND_SPECS.list, []).values }, {});
  });

  test("extend's negative durations are positionals wherever they stand, and never ask for help", () => {
    const parsed = parse(COMMAND_SPECS.extend, ['-1h', 'q/1', '--as', 'bob', '-30m']);
    assert.deepEqual(parsed.positionals, ['q/1']);
    assert.deepEqual(parsed.literals, ['-1h', '-30m']);
    assert.equal(helpRequested(COMMAND_SPECS.extend, ['q/1', '-1h']), false);
    assert.equal(helpRequested(COMMAND_SPECS.extend, ['q/1', '-1h', '-h']), true);
  });

  test('help is --help or -h given as an option: not an option value, not after --', () => {
    const ask = COMMAND_SPECS.ask;
    assert.equal(helpRequested(ask, ['--help']), true);
    assert.equal(helpRequested(ask, ['-h']), true);
    assert.equal(helpRequested(ask, ['--bogus', '--question', 'x', '--help']), true);
    assert.equal(helpRequested(ask, ['--question', '--help']), false);
    assert.equal(helpRequested(ask, ['--question=-h']), false);
    assert.equal(helpRequested(ask, ['--', '--help']), false);
    assert.equal(helpRequested(ask, ['--question', 'help']), false);
  });

  test('a usage error is an AskUserError with code USAGE', () => {
    const error = new CliUsageError('bad flag');
    assert.ok(error instanceof AskUserError);
    assert.ok(AskUserError.isInstance(error));
    assert.ok(CliUsageError.isInstance(error));
    assert.equal(CliUsageError.isInstance(new AskUserError('OTHER', 'x')), false);
    assert.deepEqual([error.name, error.code, error.message], ['CliUsageError', 'USAGE', 'bad flag']);
  });
});

describe('help text', () => {
  for (const spec of SPECS) {
    test(`${spec.name}: the usage line, the summary and every option with its placeholder`, () => {
      const help = commandHelp(spec);
      const lines = help.split('\n');
      // Help wraps long lines; what it says is checked with each run of white space as one space.
      const words = help.replace(/\s+/g, ' ');
      assert.equal(
        lines[0],
        ['Usage: ask-user', spec.name, spec.usage, '[options]'].filter(Boolean).join(' '),
      );
      assert.ok(words.includes(spec.summary.slice(1)), help);
      assert.match(help, /^ {2}-h, --help {3}/m);
      for (const [name, option] of Object.entries(spec.options)) {
        const syntax = option.type === 'string' ? `--${name} ${option.placeholder}` : `--${name}`;
        assert.match(help, new RegExp(`^ {2}${escape(syntax)} {3,}\\S`, 'm'), `${spec.name}: ${syntax}`);
        if (option.type === 'string')
          assert.ok(option.placeholder, `${spec.name} --${name} has a placeholder`);
        if (option.default !== undefined) assert.ok(words.includes(`default: ${option.default}`), help);
        if (option.multiple === true) assert.ok(words.includes('(repeatable'), `${spec.name} --${name}`);
      }
      assert.doesNotMatch(
        words,
        /repeatable[^-]*repeatable/,
        `${spec.name}: an option says "repeatable" twice`,
      );
      for (const line of lines) assert.ok(line.length <= 100, `${spec.name}: too long: ${line}`);
    });
  }

  test('ask-user answer --help: --group is said to be repeatable once, by help itself', () => {
    const lines = commandHelp(COMMAND_SPECS.answer).split('\n');
    assert.deepEqual(
      lines.filter((line) => line.includes('--group')),
      ['  --group GROUP        a group you answer for, when the question is assigned to groups (repeatable)'],
    );
    for (const spec of SPECS) {
      for (const [name, option] of Object.entries(spec.options)) {
        assert.doesNotMatch(option.description, /repeatable/, `${spec.name} --${name}: help adds it`);
      }
    }
  });

  test('the overview lists every command, at the indentation tools read it from', () => {
    const text = overview();
    assert.ok(text.startsWith('Usage: ask-user <command> [options]\n\nCommands:\n'));
    const section = text.split('Commands:')[1] ?? '';
    const listed = [...section.matchAll(/^ {2}([a-z][\w-]*)\b/gm)].map((match) => match[1]);
    assert.deepEqual(
      listed,
      SPECS.map((spec) => spec.name),
    );
    assert.ok(text.includes('Run `ask-user <command> --help`'));
  });
});

/** `text` as a literal in a regular expression. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('ask-user, run', () => {
  test('--help, -h and `help <command>` print the command help on stdout, exit 0, loading no package', async () => {
    const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'ask-user-help-'));
    try {
      const runs = SPECS.flatMap((spec) =>
        [
          [spec.name, '--help'],
          [spec.name, '-h'],
          ['help', spec.name],
        ].map((args) => ({ spec, args })),
      );
      const results = await Promise.all(
        runs.map(({ args }) => runCli(args, path.join(directory, `${args.join('_')}.json`))),
      );
      for (const [index, { spec, args }] of runs.entries()) {
        const result = results[index]!;
        assert.deepEqual(
          result,
          { code: 0, stdout: `${commandHelp(spec)}\n`, stderr: '' },
          `ask-user ${args.join(' ')}`,
        );
        for (const name of Object.keys(spec.options)) assert.ok(result.stdout.includes(`--${name}`));
        // Help is answered before the command's module loads: nothing from node_modules but tsx's loader.
        const modules = JSON.parse(
          await fs.readFile(path.join(directory, `${args.join('_')}.json`), 'utf8'),
        ) as string[];
        const packages = modules.filter(
          (file) =>
            file.includes(`${path.sep}node_modules${path.sep}`) &&
            !/[\\/]node_modules[\\/](tsx|esbuild|get-tsconfig|resolve-pkg-maps|@esbuild)[\\/]/.test(file),
        );
        assert.deepEqual(packages, [], `ask-user ${args.join(' ')}`);
      }
    } finally {
      await fs.rm(directory, { recursive: true, force: true });
    }
  });

  test('a help option after other arguments, even wrong ones, still shows the help', async () => {
    const results = await Promise.all([
      runCli(['answer', 'q/1', '--select', 'q1=Yes', '--help']),
      runCli(['list', '--bogus', '-h']),
      runCli(['extend', 'q/1', '-30m', '--help']),
      runCli(['-h', 'show']),
    ]);
    const expected = [COMMAND_SPECS.answer, COMMAND_SPECS.list, COMMAND_SPECS.extend, COMMAND_SPECS.show];
    for (const [index, result] of results.entries()) {
      assert.deepEqual(result, { code: 0, stdout: `${commandHelp(expected[index]!)}\n`, stderr: '' });
    }
  });

  test('`ask-user help`, --help and -h list the commands, exit 0; no command at all: the same list, exit 2', async () => {
    const [help, long, short, bare] = await Promise.all([
      runCli(['help']),
      runCli(['--help']),
      runCli(['-h']),
      runCli([]),
    ]);
    for (const result of [help, long, short]) {
      assert.deepEqual(result, { code: 0, stdout: `${overview()}\n`, stderr: '' });
    }
    assert.deepEqual(bare, { code: 2, stdout: `${overview()}\n`, stderr: '' });
  });

  test("an unknown option exits 2 with the reason and the hint to the command's help", async () => {
    const runnable = SPECS.filter((spec) => spec.name !== 'help');
    const results = await Promise.all(runnable.map((spec) => runCli([spec.name, '--frobnicate'])));
    for (const [index, spec] of runnable.entries()) {
      const result = results[index]!;
      assert.deepEqual(
        { code: result.code, stdout: result.stdout },
        { code: 2, stdout: '' },
        `ask-user ${spec.name}: ${result.stderr}`,
      );
      const [reason, hint, end] = result.stderr.split('\n');
      assert.match(reason ?? '', /^ask-user: Unknown option '--frobnicate'/, spec.name);
      assert.equal(hint, `Run \`ask-user ${spec.name} --help\` for usage.`);
      assert.equal(end, '');
    }
  });

  test('a blank or overlong --group is named as the flag, before any connection, by every command that takes it', async () => {
    const long = 'g'.repeat(300);
    const cases: [string[], string][] = [
      [
        ['answer', 'q/1', '--select', 'a=Yes', '--group', 'ops', '--group', ' '],
        '--group " ": must be a non-blank string',
      ],
      [['decline', 'q/1', '--group', long], `--group "${long}": at most 200 characters`],
      [['approve', 'q/1', '--group', ''], '--group "": must be a non-blank string'],
      [['approve', '--all', '--agent', 'a', '--group', ''], '--group "": must be a non-blank string'],
      [
        ['grant', '--agent', 'a', '--tool', 't', '--expire-after', '1h', '--as', 'bob', '--group', ''],
        '--group "": must be a non-blank string',
      ],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args)));
    for (const [index, [args, reason]] of cases.entries()) {
      const result = results[index]!;
      assert.equal(result.code, 2, `ask-user ${args.join(' ')}: ${result.stderr}`);
      assert.equal(result.stderr.split('\n')[0], `ask-user: ${reason}`, `ask-user ${args.join(' ')}`);
    }
  });

  test('mistakes in help itself, or an unknown command, point at `ask-user help`', async () => {
    const cases: [string[], string][] = [
      [['help', 'frobnicate'], 'ask-user: unknown command "frobnicate"'],
      [['help', 'ask', 'list'], 'ask-user: help takes one command (got ask list)'],
      [['help', '--frobnicate'], "ask-user: Unknown option '--frobnicate'"],
      [['frobnicate', '--help'], 'ask-user: unknown command "frobnicate"'],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args)));
    for (const [index, [args, reason]] of cases.entries()) {
      const result = results[index]!;
      assert.equal(result.code, 2, `ask-user ${args.join(' ')}: ${result.stderr}`);
      assert.equal(result.stdout, '');
      const [first, hint, end] = result.stderr.split('\n');
      assert.ok(first?.startsWith(reason), `ask-user ${args.join(' ')}: ${result.stderr}`);
      assert.equal(hint, 'Run `ask-user help` for usage.');
      assert.equal(end, '');
    }
  });
});
