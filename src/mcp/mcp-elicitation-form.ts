/**
 * The form a question becomes when the MCP server asks the person at the client through `elicitation/create`
 * (form mode, MCP 2025-11-25), and the answer a filled form becomes.
 *
 * Form mode allows a flat object of primitive fields only, so each question is one field: a single-select
 * question a string enum of its labels, a multi-select one an array of them, a free-form one a string. A question
 * with options also gets an optional "other" string field for an answer in the person's own words; filled in, it
 * is the item's `custom` and overrides the choices, as the answer rules require. Nothing is required: an empty
 * field skips its question, as `selected: []` does anywhere else.
 *
 * Field names are the question ids made safe for any form (letters, digits and `_`, at most 64 characters, made
 * unique); the form keeps the mapping back to the ids. Dependency-free and pure.
 */
import type { ElicitRequestFormParams } from '@modelcontextprotocol/server';
import { MAX_CUSTOM_LENGTH } from '../answer/answer-rules';
import type { AskUserQuestion, AskUserQuestionAnswerItem } from '../types';

/** The longest field name the form uses. */
const MAX_FIELD_NAME_LENGTH = 64;

/** A question text longer than this is not used as its field's title (the description carries it). */
const MAX_TITLE_LENGTH = 100;

/** One question's fields in a form. */
export interface ElicitationField {
  /** The question's id, as the answer must carry it. */
  questionId: string;
  /** `single` and `multi` choose among the options; `text` is a free-form question. */
  kind: 'single' | 'multi' | 'text';
  /** The field holding the choice (or, for `text`, the answer). */
  name: string;
  /** The "other" field of a question with options. */
  otherName?: string;
}

/** What `elicitation/create` sends, and how to read the reply back. */
export interface ElicitationForm {
  message: string;
  requestedSchema: ElicitRequestFormParams['requestedSchema'];
  fields: ElicitationField[];
}

type FieldSchema = ElicitRequestFormParams['requestedSchema']['properties'][string];

/** `id` as a field name: letters, digits and `_` only, never empty, at most 64 characters. */
function safeName(id: string): string {
  const name = id.replace(/[^A-Za-z0-9_]/g, '_').slice(0, MAX_FIELD_NAME_LENGTH);
  return name === '' ? 'question' : name;
}

/** `base`, or `base_2`, `base_3`, ... : the first one not yet used (and then marked used). */
function uniqueName(base: string, used: Set<string>): string {
  let name = base;
  for (let suffix = 2; used.has(name); suffix += 1) {
    const tail = `_${suffix}`;
    name = `${base.slice(0, MAX_FIELD_NAME_LENGTH - tail.length)}${tail}`;
  }
  used.add(name);
  return name;
}

/** The field's title: the header, else the question when it is short enough to be one. */
function titleOf(question: AskUserQuestion, index: number): string {
  if (question.header !== undefined) return question.header;
  return question.question.length <= MAX_TITLE_LENGTH ? question.question : `Question ${index + 1}`;
}

/** The question text when the title is not it, then one line per described option. */
function descriptionOf(question: AskUserQuestion, title: string): string | undefined {
  const lines = title === question.question ? [] : [question.question];
  for (const option of question.options ?? []) {
    if (option.description !== undefined) lines.push(`${option.label}: ${option.description}`);
  }
  if (question.multiSelect === true) lines.push('Choose any number.');
  return lines.length === 0 ? undefined : lines.join('\n');
}

/** The message above the fields: what the person is asked, and what Decline and closing the form do. */
function formMessage(questions: readonly AskUserQuestion[], note: string | undefined): string {
  const lines = questions.map((question, index) => {
    const text =
      question.header === undefined ? question.question : `${question.header}: ${question.question}`;
    return questions.length === 1 ? text : `${index + 1}. ${text}`;
  });
  const intro =
    'An agent is waiting for your answer. Decline refuses the question; closing the form leaves it open for others to answer.';
  return [...(note === undefined ? [] : [note, '']), intro, '', ...lines].join('\n');
}

/**
 * The form for `questions`; `note` (a reason the last answer was not recorded) opens the message.
 *
 * @example
 * const form = elicitationForm(record.questions);
 * const result = await server.elicitInput({ mode: 'form', message: form.message, requestedSchema: form.requestedSchema });
 */
export function elicitationForm(questions: readonly AskUserQuestion[], note?: string): ElicitationForm {
  const used = new Set<string>();
  // Every question's own field first, so a question id never loses its plain name to another's "other" field.
  const names = questions.map((question) => uniqueName(safeName(question.id), used));
  const fields: ElicitationField[] = questions.map((question, index) => {
    const name = names[index]!;
    const options = question.options ?? [];
    if (options.length === 0) return { questionId: question.id, kind: 'text', name };
    return {
      questionId: question.id,
      kind: question.multiSelect === true ? 'multi' : 'single',
      name,
      otherName: uniqueName(`${name.slice(0, MAX_FIELD_NAME_LENGTH - '_other'.length)}_other`, used),
    };
  });

  const properties: Record<string, FieldSchema> = {};
  questions.forEach((question, index) => {
    const field = fields[index]!;
    const title = titleOf(question, index);
    const description = descriptionOf(question, title);
    const described = description === undefined ? { title } : { title, description };
    const labels = (question.options ?? []).map((option) => option.label);
    if (field.kind === 'text') {
      properties[field.name] = { type: 'string', ...described, maxLength: MAX_CUSTOM_LENGTH };
      return;
    }
    properties[field.name] =
      field.kind === 'multi'
        ? { type: 'array', ...described, items: { type: 'string', enum: labels } }
        : { type: 'string', ...described, enum: labels };
    properties[field.otherName!] = {
      type: 'string',
      title: `${title}: other answer`,
      description: 'Your own answer, instead of the choices above',
      maxLength: MAX_CUSTOM_LENGTH,
    };
  });

  return {
    message: formMessage(questions, note),
    requestedSchema: { type: 'object', properties },
    fields,
  };
}

/** A text the person actually wrote: a string with more than whitespace. */
function written(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/**
 * The answer items a filled form gives, one per question in order: a written "other" (or free-form) text is
 * `custom` with no labels; otherwise the chosen labels (a multi-select's once each); an empty field skips.
 * Whether they fit the questions is for the answer rules to say, where the answer is recorded.
 */
export function answerFromForm(
  form: Pick<ElicitationForm, 'fields'>,
  content: Record<string, unknown>,
): AskUserQuestionAnswerItem[] {
  return form.fields.map((field) => {
    const value = content[field.name];
    const other = field.otherName === undefined ? undefined : content[field.otherName];
    if (written(other)) return { id: field.questionId, selected: [], custom: other };
    if (field.kind === 'text') {
      return written(value)
        ? { id: field.questionId, selected: [], custom: value }
        : { id: field.questionId, selected: [] };
    }
    if (field.kind === 'multi') {
      const labels = Array.isArray(value) ? value.filter((label) => typeof label === 'string') : [];
      return { id: field.questionId, selected: [...new Set(labels)] };
    }
    return { id: field.questionId, selected: typeof value === 'string' ? [value] : [] };
  });
}
