/**
 * The rules of an approval's decision, written once for every entry: the `decide` update's validator, the ops
 * client, the inbox, the CLI and the in-memory provider. A decision is `approve`, `edit` (with the input to run
 * instead, checked against the tool's input schema when the approval has one), `reject` (with an optional
 * reason) or `respond` (with the text the model reads in place of the tool's result).
 *
 * Edited input is checked with `@cfworker/json-schema`, which interprets the schema instead of compiling it to
 * code: the check runs inside the workflow's update validator (so that the stock Temporal CLI's update is
 * refused too), where a compiling validator such as ajv would rebuild its generated code at every replay.
 * Deterministic and workflow-safe.
 */
import { Validator, type OutputUnit, type SchemaDraft } from '@cfworker/json-schema';
import { isPlainObject } from '../common';
import type { ApprovalDecisionType, ApprovalSubject, DecideInput, JsonSchemaObject } from '../types';
import { MAX_ANSWER_BYTES, MAX_CUSTOM_LENGTH } from './answer-rules';
import { codePointLength, jsonByteLength } from './json-size';

/** Every decision, in the order surfaces offer them. */
export const DECISION_TYPES: readonly ApprovalDecisionType[] = ['approve', 'edit', 'reject', 'respond'];

/** Which rule a refused decision broke (`UserInteractionError.rule` of its `BAD_ANSWER`). */
export type DecisionRule = 'decision-shape' | 'decision-type' | 'edited-input' | 'decision-text';

/** A checked decision, without who and when (the workflow adds them), or why it was refused. */
export type DecisionCheck =
  { ok: true; decision: DecideInput } | { ok: false; rule: DecisionRule; reason: string };

/** What each decision may carry besides `type` and `decidedBy`. */
const FIELDS_OF: Record<ApprovalDecisionType, readonly string[]> = {
  approve: [],
  edit: ['input'],
  reject: ['reason', 'stop'],
  respond: ['text'],
};

function refused(rule: DecisionRule, reason: string): DecisionCheck {
  return { ok: false, rule, reason };
}

/** `#/a/0/b~1c` as the path a person reads: `input.a[0]["b/c"]`. */
export function inputPath(instanceLocation: string): string {
  const tokens = instanceLocation
    .replace(/^#/, '')
    .split('/')
    .slice(1)
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
  return tokens.reduce((path, token) => {
    if (/^\d+$/.test(token)) return `${path}[${token}]`;
    if (/^[A-Za-z_$][\w$]*$/.test(token)) return `${path}.${token}`;
    return `${path}[${JSON.stringify(token)}]`;
  }, 'input');
}

/**
 * The errors that say what is wrong, not the ones that only report that a child failed (`properties`,
 * `items`, `allOf` and the like, which name the parent of a deeper error).
 */
export function leafErrors(errors: readonly OutputUnit[]): OutputUnit[] {
  return errors.filter(
    (error) =>
      !errors.some(
        (other) =>
          other !== error &&
          other.keywordLocation.startsWith(`${error.keywordLocation}/`) &&
          other.instanceLocation.startsWith(error.instanceLocation),
      ),
  );
}

/** The draft a schema declares in `$schema` (AI SDK schemas say draft-07); 2020-12 when it says none. */
export function draftOf(schema: JsonSchemaObject): SchemaDraft {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (declared.includes('draft-04')) return '4';
  if (declared.includes('draft-06') || declared.includes('draft-07')) return '7';
  if (declared.includes('2019-09')) return '2019-09';
  return '2020-12';
}

/**
 * Checks `input` against `schema`: `undefined` when it passes, else `<path>: <reason>` for the first problem
 * (and how many more there are).
 */
export function schemaProblem(schema: JsonSchemaObject, input: unknown): string | undefined {
  let result: { valid: boolean; errors: OutputUnit[] };
  try {
    result = new Validator(schema, draftOf(schema), false).validate(input);
  } catch (error) {
    return `inputSchema: cannot be used: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (result.valid) return undefined;
  const [first, ...rest] = leafErrors(result.errors);
  if (first === undefined) return 'input: does not match the tool input schema';
  const more = rest.length === 0 ? '' : ` (and ${rest.length} more)`;
  return `${inputPath(first.instanceLocation)}: ${first.error.replace(/\.$/, '')}${more}`;
}

/**
 * Checks one decision on `subject`. Unknown extra fields are refused (a typo such as `reasn` would otherwise
 * drop the reviewer's words); `null` in an optional field reads as absent.
 */
export function checkDecision(subject: ApprovalSubject, raw: unknown): DecisionCheck {
  if (!isPlainObject(raw)) return refused('decision-shape', 'decision: must be an object with a type');
  const type = raw.type;
  if (typeof type !== 'string' || !DECISION_TYPES.includes(type as ApprovalDecisionType)) {
    return refused('decision-type', `decision.type: must be one of ${DECISION_TYPES.join(', ')}`);
  }
  const decisionType = type as ApprovalDecisionType;
  const allowed = FIELDS_OF[decisionType];
  for (const [field, value] of Object.entries(raw)) {
    if (field === 'type' || value === null || value === undefined) continue;
    if (field === 'decidedBy') {
      if (typeof value !== 'string') return refused('decision-shape', 'decision.decidedBy: must be a string');
      continue;
    }
    // Who decides, not what: checked against the approval's audience before these rules run.
    if (field === 'groups') continue;
    if (!allowed.includes(field)) {
      const carriers = DECISION_TYPES.filter((other) => FIELDS_OF[other].includes(field));
      const hint = carriers.length === 0 ? 'unknown field' : `only ${carriers.join(', ')} carries it`;
      return refused('decision-shape', `decision.${field}: not part of ${decisionType}: ${hint}`);
    }
  }
  const decision: DecideInput = { type: decisionType };
  if (typeof raw.decidedBy === 'string') decision.decidedBy = raw.decidedBy;
  switch (decisionType) {
    case 'approve':
      return { ok: true, decision };
    case 'edit': {
      if (raw.input === undefined || raw.input === null) {
        return refused('edited-input', 'decision.input: an edit needs the input to run the tool with');
      }
      const bytes = jsonByteLength(raw.input);
      if (bytes === undefined) return refused('edited-input', 'decision.input: must be a JSON value');
      if (bytes > MAX_ANSWER_BYTES) {
        return refused(
          'edited-input',
          `decision.input: is ${bytes} bytes, over the ${MAX_ANSWER_BYTES}-byte limit`,
        );
      }
      if (subject.inputSchema !== undefined) {
        const problem = schemaProblem(subject.inputSchema, raw.input);
        if (problem !== undefined) return refused('edited-input', problem);
      }
      decision.input = raw.input;
      return { ok: true, decision };
    }
    case 'reject': {
      const problem = textProblem('reason', raw.reason, false);
      if (problem !== undefined) return refused('decision-text', problem);
      if (raw.stop !== undefined && typeof raw.stop !== 'boolean') {
        return refused('decision-shape', 'decision.stop: must be true or false');
      }
      if (typeof raw.reason === 'string' && raw.reason.trim() !== '') decision.reason = raw.reason;
      if (raw.stop === true) decision.stop = true;
      return { ok: true, decision };
    }
    case 'respond': {
      const problem = textProblem('text', raw.text, true);
      if (problem !== undefined) return refused('decision-text', problem);
      decision.text = raw.text as string;
      return { ok: true, decision };
    }
  }
}

function textProblem(field: 'reason' | 'text', value: unknown, required: boolean): string | undefined {
  if (value === undefined || value === null) {
    return required ? `decision.${field}: a response needs the text the model reads` : undefined;
  }
  if (typeof value !== 'string') return `decision.${field}: must be a string`;
  if (required && value.trim() === '') return `decision.${field}: must not be blank`;
  if (codePointLength(value) > MAX_CUSTOM_LENGTH) {
    return `decision.${field}: must be at most ${MAX_CUSTOM_LENGTH} characters`;
  }
  return undefined;
}
