/**
 * What every command accepts, declared once: its options (what `parse` parses) and the words its help is made
 * of (what `help.ts` prints). A command module parses with its entry here; `main.ts` answers `--help` from the
 * same entry before it loads the module, so help never loads the SDK, the worker or the dev-server launcher.
 *
 * Imports nothing at run time but the plain data of `batch-specs.ts` and `grant-specs.ts`: keep it that way, it
 * is loaded by every `ask-user` run.
 */

import { AUDIT_SPEC, BATCH_DETAIL, BATCH_OPTIONS } from './batch-specs';
import { GRANTS_SPEC, GRANT_SPEC, REVOKE_GRANT_SPEC } from './grant-specs';
import type { CommandSpec, OptionSpec } from './command-spec-types';

export type { CommandSpec, OptionSpec } from './command-spec-types';

/** How a question id is named in the details of the commands that take one. */
const ID_DETAIL =
  '<id> is the workflow id `ask-user list` shows, or the part of it after `ask-user-question/`.';

/**
 * `--group`: the answerer's groups, checked against a question's audience. The CLI authenticates no one (it
 * acts with its Temporal access), so, as with `--as`, what it says is taken as said.
 */
const GROUP_OPTION: OptionSpec = {
  type: 'string',
  multiple: true,
  placeholder: 'GROUP',
  description: 'a group you answer for, when the question is assigned to groups',
};

/** A string option whose value is free text (`--reason TEXT`). */
function textOption(description: string): OptionSpec {
  return { type: 'string', placeholder: 'TEXT', description };
}

/** `--as NAME`: who acts, as the question's record will name them. */
function asOption(description: string): OptionSpec {
  return { type: 'string', placeholder: 'NAME', description, default: '$USER' };
}

/** `--json`: print `what` as JSON instead of a line of text. */
function jsonOption(what: string): OptionSpec {
  return { type: 'boolean', description: `print ${what} as JSON` };
}

/** The options of a command that resolves a question as someone: `--as`, `--group` and `--json`. */
function resolvingOptions(
  who: string,
  printed: string,
): { as: OptionSpec; group: OptionSpec; json: OptionSpec } {
  return { as: asOption(who), group: GROUP_OPTION, json: jsonOption(printed) };
}

/**
 * A command on one question, `<name> <id>`: its details open with how the id is written.
 */
function questionCommand<const Name extends string, const Options extends Record<string, OptionSpec>>(
  name: Name,
  summary: string,
  details: readonly string[],
  options: Options,
): { name: Name; summary: string; usage: '<id>'; details: readonly string[]; options: Options } {
  return { name, summary, usage: '<id>', details: [ID_DETAIL, ...details], options };
}

/** A command that decides a pending approval: its own options, then `--as`, `--group` and `--json`. */
function decisionCommand<const Name extends string, const Options extends Record<string, OptionSpec>>(
  name: Name,
  summary: string,
  details: readonly string[],
  who: string,
  options: Options,
) {
  return questionCommand(name, summary, details, {
    ...options,
    ...resolvingOptions(who, 'the decided approval record'),
  });
}

/** Every command, in the order `ask-user help` lists them. */
export const COMMAND_SPECS = {
  dev: {
    name: 'dev',
    summary: 'Temporal dev server (SQLite, persisted) + worker + inbox, for local use',
    usage: '',
    details: [
      'Runs until Ctrl-C, then stops the worker, the inbox and the dev server.',
      'The inbox link it prints carries ASK_USER_INBOX_TOKEN, or a token generated for this run. ' +
        'ASK_USER_LOG_LEVEL sets the log level of the worker (default WARN).',
    ],
    options: {
      db: {
        type: 'string',
        placeholder: 'FILE',
        description: 'the SQLite file the dev server keeps its data in',
        default: '$ASK_USER_DEV_DB, else ./.data/temporal.sqlite',
      },
      port: {
        type: 'string',
        placeholder: 'PORT',
        description: 'the gRPC port of the dev server',
        default: '7233',
      },
      'ui-port': {
        type: 'string',
        placeholder: 'PORT',
        description: 'the port of the Temporal Web UI',
        default: 'the gRPC port + 1000',
      },
      headless: { type: 'boolean', description: 'run without the Temporal Web UI' },
      'inbox-port': {
        type: 'string',
        placeholder: 'PORT',
        description: 'the port of the ops inbox; when not given and taken, any free port',
        default: 'the gRPC port + 1001',
      },
    },
  },
  worker: {
    name: 'worker',
    summary: 'run the ask-user worker against TEMPORAL_ADDRESS',
    usage: '',
    details: [
      'Polls the task queue ASK_USER_TASK_QUEUE of the server the TEMPORAL_* settings name, until Ctrl-C. ' +
        'ASK_USER_LOG_LEVEL sets its log level (default WARN).',
    ],
    options: {},
  },
  ask: {
    name: 'ask',
    summary: 'ask from a shell and wait for the answer; prints the result text',
    usage: '',
    details: [
      "Needs --question TEXT (one question, built from the flags) or --args JSON (the tool's arguments as " +
        'the model sends them). Prints the result the model would read; Ctrl-C withdraws the question.',
    ],
    options: {
      question: textOption('the question to ask'),
      id: { type: 'string', placeholder: 'ID', description: 'the id of the question', default: 'q1' },
      header: textOption('a short header shown above the question'),
      option: {
        type: 'string',
        multiple: true,
        placeholder: 'LABEL',
        description: 'an option to choose from; without any, the answer is free text',
      },
      multi: { type: 'boolean', description: 'let the answer choose several options' },
      args: {
        type: 'string',
        placeholder: 'JSON',
        description: "the tool's arguments as the model sends them, instead of the flags above",
      },
      agent: { type: 'string', placeholder: 'ID', description: 'the id of the asking agent', default: 'cli' },
      session: { type: 'string', placeholder: 'ID', description: 'the session of the asking agent' },
      'tool-call-id': {
        type: 'string',
        placeholder: 'ID',
        description: 'the durable key: asking again with the same id re-attaches to the same question',
      },
    },
  },
  list: {
    name: 'list',
    summary: 'list questions, pending first, newest first',
    usage: '',
    details: [
      'When there are more, the command to list the next page is printed on stderr (`more: ...`), so that ' +
        'stdout stays the table or the JSON array.',
    ],
    options: {
      status: {
        type: 'string',
        placeholder: 'STATUS',
        description: 'which questions: pending, answered or all',
        default: 'pending',
      },
      limit: {
        type: 'string',
        placeholder: 'N',
        description: 'at most N questions, 1 to 1000',
        default: '100',
      },
      'page-token': {
        type: 'string',
        placeholder: 'TOKEN',
        description: 'continue where a list stopped, with the token it printed',
      },
      json: { type: 'boolean', description: 'print the questions as a JSON array' },
    },
  },
  show: questionCommand('show', 'one question, its options and its outcome', [], {
    json: jsonOption('the question record'),
  }),
  answer: questionCommand(
    'answer',
    'answer a pending question, from flags or at the prompt',
    ['With no --select and no --custom, in a terminal, it asks each question at the prompt.', BATCH_DETAIL],
    {
      select: {
        type: 'string',
        multiple: true,
        placeholder: 'QID=LABEL',
        description: 'choose the option LABEL for the question with id QID',
      },
      custom: {
        type: 'string',
        multiple: true,
        placeholder: 'QID=TEXT',
        description: 'answer the question with id QID in your own words',
      },
      ...resolvingOptions('who answers', 'the answered question record'),
      ...BATCH_OPTIONS,
    },
  ),
  decline: questionCommand(
    'decline',
    'decline a pending question; the waiting agent is told it was cancelled',
    [],
    {
      reason: textOption('why, in words the waiting agent sees'),
      ...resolvingOptions('who declines', 'the declined question record'),
    },
  ),
  approve: decisionCommand(
    'approve',
    'approve a pending tool call, as it is or with an edited input',
    [
      "With --input, the tool runs with that input instead of the model's; it must satisfy the tool's " +
        'input schema when the approval carries one (refused with the path and the reason otherwise).',
      BATCH_DETAIL,
    ],
    'who approves',
    {
      input: {
        type: 'string',
        placeholder: 'JSON',
        description: 'the input the tool runs with instead of the original (an edit)',
      },
      ...BATCH_OPTIONS,
    },
  ),
  deny: decisionCommand(
    'deny',
    'deny a pending tool call; the model reads the reason',
    [
      'The tool does not run; the model reads that the call was rejected, and why. With --stop the agent also ' +
        "ends its run (the framework's own stop).",
      BATCH_DETAIL,
    ],
    'who denies',
    {
      reason: textOption('why, in words the model reads'),
      stop: { type: 'boolean', description: "also stop the agent's run, not only this call" },
      ...BATCH_OPTIONS,
    },
  ),
  respond: decisionCommand(
    'respond',
    "answer a pending tool call with a text the model reads in place of the tool's result",
    ['Needs --text. The tool does not run.'],
    'who responds',
    { text: textOption("what the model reads as the tool's result") },
  ),
  extend: {
    name: 'extend',
    summary: 'move the deadline of a pending question later (2h) or earlier (-30m)',
    usage: '<id> <duration>',
    details: [
      ID_DETAIL,
      '<duration> such as 2h, 90m or -30m; a question with no deadline gets one, counted from now.',
    ],
    options: {
      as: asOption('who moves the deadline'),
      json: jsonOption('the outcome'),
    },
    literal: /^-\d/,
  },
  mcp: {
    name: 'mcp',
    summary: 'serve ask_user_question over MCP, on stdio or streamable HTTP',
    usage: '',
    details: [
      'On stdio, stdout belongs to the protocol. It ends when the client closes stdin, or on Ctrl-C; ' +
        'questions still pending then stay pending.',
      'A client that declares form elicitation also shows its person a form for each question, racing with ops.',
      'A 2026-07-28 client that declares the Tasks extension gets the question as a task, its id the ' +
        "question's workflow id. One that shows forms but takes no tasks gets them in a multi round-trip call, " +
        'its requestState sealed with ASK_USER_MCP_STATE_KEY (at least 32 bytes, the same for every instance; ' +
        'default: a random key per process) and valid for ASK_USER_MCP_STATE_TTL seconds (default 3600).',
    ],
    options: {
      http: {
        type: 'string',
        placeholder: 'PORT',
        description: 'serve streamable HTTP on http://127.0.0.1:PORT/mcp instead of stdio',
      },
      agent: {
        type: 'string',
        placeholder: 'ID',
        description: 'the agent id the questions are recorded under',
        default: 'mcp',
      },
      'keep-on-cancel': {
        type: 'boolean',
        description: 'a cancel from the client leaves the question pending, to re-attach to',
      },
      ops: {
        type: 'boolean',
        description:
          'add the ops tools list_pending_questions, answer_question and decide_approval (not for the asking agent)',
      },
      'progress-interval': {
        type: 'string',
        placeholder: 'SECONDS',
        description: 'how often a waiting call sends progress notifications, and a task suggests polling',
        default: '5',
      },
      'no-elicit': {
        type: 'boolean',
        description: 'never show the person at the client a form, even when the client supports elicitation',
      },
      'elicit-as': {
        type: 'string',
        placeholder: 'NAME',
        description: 'who the record names as the answerer of a form',
        default: 'mcp:<client name>',
      },
    },
  },
  inbox: {
    name: 'inbox',
    summary: 'serve the ops inbox (page + HTTP API); needs ASK_USER_INBOX_TOKEN',
    usage: '',
    details: [
      'Needs ASK_USER_INBOX_TOKEN, or ASK_USER_INBOX_USERS naming a file of users and tokens. Runs until Ctrl-C.',
      'ASK_USER_INBOX_SESSION_KEY (32 characters or more) seals page logins, so they survive a restart and work ' +
        'across replicas; without it, logins end with the process.',
    ],
    options: {
      port: {
        type: 'string',
        placeholder: 'PORT',
        description: 'the port to serve on, 0 for any free port',
        default: '8234',
      },
      host: {
        type: 'string',
        placeholder: 'HOST',
        description: 'the interface to bind',
        default: '127.0.0.1',
      },
    },
  },
  watch: {
    name: 'watch',
    summary: 'print each new pending question as it arrives',
    usage: '',
    details: ['Reads visibility only (no worker needed), until Ctrl-C.'],
    options: {
      json: { type: 'boolean', description: 'one JSON object per line instead of one line of text' },
      interval: {
        type: 'string',
        placeholder: 'SECONDS',
        description: 'how often to look for new questions, 0.1 to 3600',
        default: '2',
      },
    },
  },
  audit: AUDIT_SPEC,
  grants: GRANTS_SPEC,
  grant: GRANT_SPEC,
  'revoke-grant': REVOKE_GRANT_SPEC,
  help: {
    name: 'help',
    summary: 'list the commands, or show the usage and options of one',
    usage: '[<command>]',
    options: {},
  },
} as const satisfies Record<string, CommandSpec>;

/** The name of a command. */
export type CommandName = keyof typeof COMMAND_SPECS;

/** The spec of `name`, if it names a command. */
export function commandSpec(name: string): CommandSpec | undefined {
  return Object.hasOwn(COMMAND_SPECS, name) ? COMMAND_SPECS[name as CommandName] : undefined;
}

/** The option every command takes, besides its own: parsed by `helpRequested`, listed last in help. */
export const HELP_OPTION: OptionSpec = { type: 'boolean', short: 'h', description: 'show this help' };
