/**
 * The shape of a command's declaration: the options `parse` parses and the words `help.ts` prints. The
 * declarations themselves are in `command-specs.ts`.
 */

/** One option of a command: how it parses, and how its help line reads. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  /** Repeatable: every occurrence is kept, in order (`--option Yes --option No`). */
  readonly multiple?: boolean;
  /** A one-letter alias (`-x`). */
  readonly short?: string;
  /** What the option does, one line, lower case, no full stop. */
  readonly description: string;
  /** The value's placeholder in help (`--select QID=LABEL`); string options only. Default `VALUE`. */
  readonly placeholder?: string;
  /**
   * The default, as help shows it. Documentation only: the command applies it itself (several defaults depend
   * on other options, or on whether the option was given at all), so the parser never fills it in.
   */
  readonly default?: string;
}

/** A command: its name, what it does, its positionals and its options. */
export interface CommandSpec {
  readonly name: string;
  /** One line for the list of commands, lower case, no full stop. */
  readonly summary: string;
  /** The positionals after the command name, for the usage line (`<id> <duration>`); empty for none. */
  readonly usage: string;
  /** More about the command, printed under the usage line: sentences, one paragraph per entry. */
  readonly details?: readonly string[];
  readonly options: Readonly<Record<string, OptionSpec>>;
  /**
   * Arguments matching this are positionals even though they start with `-` (`extend`'s `-30m`), wherever
   * they stand; `parse` returns them apart, as `literals`.
   */
  readonly literal?: RegExp;
}
