/**
 * A modal's submission (`view_submission`): the Other… texts answer, Decline… declines, Deny… rejects and Edit…
 * decides an edit (which the agent runs, or receives as a denial suggesting the input: the message says which).
 * A refusal of the input itself (text that is not JSON, an edit outside the tool's schema, an answer the rules
 * refuse) comes back as errors beside the field, keeping the modal open.
 */
import { definedFields, errorText } from '../common';
import type { QuestionRecord } from '../types';
import {
  INPUT_ACTION,
  INPUT_BLOCK,
  REASON_BLOCK,
  SLACK_VIEWS,
  STOP_BLOCK,
  STOP_VALUE,
  decodeViewContext,
  textBlockId,
  type SlackViewContext,
} from './slack-modals';
import { answerFrom, objectAt, stringAt, type Json } from './slack-payload';
import type { SlackRecorder } from './slack-recorder';
import type { Place } from './slack-replies';

/** The response that keeps a modal open with errors beside its inputs. */
export interface ViewErrors {
  response_action: 'errors';
  errors: Record<string, string>;
}

/** A submission, read: who submitted which modal, its inputs, and the pending question it answers. */
interface Submission {
  place: Place;
  context: SlackViewContext;
  record: QuestionRecord;
  /** The text of the input in block `blockId`, `undefined` when left empty. */
  input(blockId: string): string | undefined;
  /** The values ticked in the checkboxes of block `blockId` (none when it has none, or no such block). */
  ticked(blockId: string): string[];
}

function errors(blockId: string, reason: string): ViewErrors {
  return { response_action: 'errors', errors: { [blockId]: reason.slice(0, 2000) } };
}

/** Who submitted, and the message the modal was opened from; `undefined` for a modal the route did not open. */
export function submittedFrom(payload: Json): { place: Place; context: SlackViewContext } | undefined {
  const context = decodeViewContext(objectAt(payload, 'view')?.private_metadata);
  const user = stringAt(objectAt(payload, 'user'), 'id');
  if (context === undefined || user === undefined) return undefined;
  return { place: { user, channel: context.channel, ts: context.ts }, context };
}

/** Handles one submission: the errors to show in the modal, or `undefined` to close it. */
export async function handleViewSubmission(
  payload: Json,
  recorder: SlackRecorder,
): Promise<ViewErrors | undefined> {
  const from = submittedFrom(payload);
  if (from === undefined) return undefined;
  const view = objectAt(payload, 'view');
  const values = objectAt(objectAt(view, 'state'), 'values');
  const record = await recorder.pendingRecord(from.place, from.context.workflowId);
  if (record === undefined) return undefined;
  const submission: Submission = {
    ...from,
    record,
    input(blockId) {
      const value = objectAt(objectAt(values, blockId), INPUT_ACTION)?.value;
      return typeof value === 'string' && value.trim() !== '' ? value : undefined;
    },
    ticked(blockId) {
      const options = objectAt(objectAt(values, blockId), INPUT_ACTION)?.selected_options;
      if (!Array.isArray(options)) return [];
      return options.flatMap((option) => stringAt(option, 'value') ?? []);
    },
  };
  switch (stringAt(view, 'callback_id')) {
    case SLACK_VIEWS.other:
      return await submitOther(submission, recorder);
    case SLACK_VIEWS.decline:
      return await submitDecline(submission, recorder);
    case SLACK_VIEWS.deny:
      return await submitDeny(submission, recorder);
    case SLACK_VIEWS.edit:
      return await submitEdit(submission, recorder);
    default:
      return undefined;
  }
}

/** Other…: the written texts, with what the message held for the other questions. */
async function submitOther(submission: Submission, recorder: SlackRecorder): Promise<ViewErrors | undefined> {
  const { place, context, record } = submission;
  const { workflowId } = context;
  const question = context.question ?? 0;
  const texts = new Map<number, string>();
  record.questions.forEach((_question, index) => {
    const text = submission.input(textBlockId(index));
    if (text !== undefined) texts.set(index, text);
  });
  if (!texts.has(question)) return errors(textBlockId(question), 'Write an answer.');
  const answer = answerFrom(record.questions, context.chosen ?? [], texts);
  if (!answer.ok) return errors(textBlockId(question), answer.reason);
  const refused = await recorder.record(
    place,
    workflowId,
    record,
    (name) => recorder.questions.answer(workflowId, { answers: answer.answers, answeredBy: name }),
    'modal',
  );
  if (refused === undefined) return undefined;
  // The rules name the answer they refused (`answers[1].custom: ...`): shown beside that question's text.
  const at = /answers\[(\d+)\]/.exec(refused.untold)?.[1];
  const blockId = at !== undefined && texts.has(Number(at)) ? textBlockId(Number(at)) : textBlockId(question);
  return errors(blockId, refused.untold);
}

/** Decline…: the question declined, with the reason when one was written. */
async function submitDecline(submission: Submission, recorder: SlackRecorder): Promise<undefined> {
  const { place, context, record } = submission;
  const { workflowId } = context;
  const reason = submission.input(REASON_BLOCK)?.trim();
  await recorder.record(place, workflowId, record, (name) =>
    recorder.questions.decline(workflowId, definedFields({ reason, declinedBy: name })),
  );
  return undefined;
}

/** Deny…: the tool call rejected, with the reason when one was written, and the agent's run stopped when ticked. */
async function submitDeny(submission: Submission, recorder: SlackRecorder): Promise<ViewErrors | undefined> {
  const { place, context, record } = submission;
  const { workflowId } = context;
  const reason = submission.input(REASON_BLOCK)?.trim();
  const stop = submission.ticked(STOP_BLOCK).includes(STOP_VALUE) ? true : undefined;
  const refused = await recorder.record(
    place,
    workflowId,
    record,
    (name) =>
      recorder.questions.decide(
        workflowId,
        definedFields({ type: 'reject' as const, reason, stop, decidedBy: name }),
      ),
    'modal',
  );
  return refused === undefined ? undefined : errors(REASON_BLOCK, refused.untold);
}

/** Edit…: an edit decision, whose input must be JSON the tool's schema takes. */
async function submitEdit(submission: Submission, recorder: SlackRecorder): Promise<ViewErrors | undefined> {
  const { place, context, record } = submission;
  const { workflowId } = context;
  let edited: unknown;
  try {
    edited = JSON.parse(submission.input(INPUT_BLOCK) ?? '');
  } catch (error) {
    return errors(INPUT_BLOCK, `Not valid JSON: ${errorText(error)}`);
  }
  const refused = await recorder.record(
    place,
    workflowId,
    record,
    (name) => recorder.questions.decide(workflowId, { type: 'edit', input: edited, decidedBy: name }),
    'modal',
  );
  return refused === undefined ? undefined : errors(INPUT_BLOCK, refused.untold);
}
