/**
 * The forms a pending question shows a 2026-07-28 client in place (the `inputRequests` of an `input_required`
 * task, or of an `input_required` tool result), and the answer their responses become.
 *
 * One form per question, each the same form a 2025-11-25 client gets (`mcp-elicitation-form.ts`) for that one
 * question. Their keys name the question's position and the attempt: after a refused answer the next forms get
 * new keys, because a client answers each key once (it shows a key it already answered never again).
 *
 * Dependency-free and pure.
 */
import type { AskUserQuestion, AskUserQuestionAnswerItem } from '../types';
import { answerFromForm, elicitationForm, type ElicitationForm } from './mcp-elicitation-form';

/** One embedded form-mode `elicitation/create`, as `inputRequests` carries it. */
export interface FormInputRequest {
  method: 'elicitation/create';
  params: { mode: 'form'; message: string; requestedSchema: ElicitationForm['requestedSchema'] };
}

/** The key of question `index`'s form at `attempt` (0 for the first forms, 1 after one refused answer …). */
export function formKey(index: number, attempt: number): string {
  return attempt === 0 ? `question-${index + 1}` : `question-${index + 1}-retry-${attempt}`;
}

/** The forms for `questions`, keyed by {@link formKey}; `note` (why the last answer was refused) tops each. */
export function questionForms(
  questions: readonly AskUserQuestion[],
  attempt: number,
  note?: string,
): Record<string, FormInputRequest> {
  const requests: Record<string, FormInputRequest> = {};
  questions.forEach((question, index) => {
    const form = elicitationForm([question], note);
    requests[formKey(index, attempt)] = {
      method: 'elicitation/create',
      params: { mode: 'form', message: form.message, requestedSchema: form.requestedSchema },
    };
  });
  return requests;
}

/** What the person did with the forms of one attempt. */
export type FormReply =
  /** Every form was submitted: the answer, one item per question in order. */
  | { kind: 'answer'; answers: AskUserQuestionAnswerItem[] }
  /** A form was declined: the question is refused. */
  | { kind: 'decline' }
  /** A form was dismissed, or some form has no response yet: nothing to record. */
  | { kind: 'none' };

/** An elicitation response as the client sent it (untrusted: only the shape read here is relied on). */
function elicitResponse(value: unknown): { action?: unknown; content?: unknown } | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
}

/**
 * Reads the responses to the forms of `attempt`. Keys of other attempts or unknown keys are ignored, as the
 * Tasks extension asks; a decline of any form declines the question.
 */
export function replyFromForms(
  questions: readonly AskUserQuestion[],
  attempt: number,
  responses: Record<string, unknown>,
): FormReply {
  const answers: AskUserQuestionAnswerItem[] = [];
  for (const [index, question] of questions.entries()) {
    const response = elicitResponse(responses[formKey(index, attempt)]);
    if (response?.action === 'decline') return { kind: 'decline' };
    if (response?.action !== 'accept') return { kind: 'none' };
    const content =
      typeof response.content === 'object' && response.content !== null
        ? (response.content as Record<string, unknown>)
        : {};
    const [item] = answerFromForm(elicitationForm([question]), content);
    answers.push(item!);
  }
  return { kind: 'answer', answers };
}
