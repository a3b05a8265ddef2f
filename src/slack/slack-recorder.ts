/**
 * Recording a click: the answer, decline or decision goes through the same validated update as every other
 * surface (`QuestionClient.answer`, `decline`, `decide`) under the clicker's Slack name, and its outcome is shown
 * in the message, or the refusal told to the clicker.
 */
import { errorText } from '../common';
import { QuestionOperationError } from '../interaction/question-operation-error';
import type { QuestionClient } from '../ops/question-client';
import type { QuestionOutcome, QuestionRecord } from '../types';
import type { Place, SlackReplies } from './slack-replies';
import type { SlackUserNames } from './slack-users';

/** What the route needs of the ops client. */
export type SlackAnswering = Pick<QuestionClient, 'get' | 'answer' | 'decline' | 'decide'>;

/** Where a refused input is shown: to the clicker, or beside the modal's field (only a modal's response can). */
export type BadInputShown = 'ephemeral' | 'modal';

/** A refusal left for the modal to show beside its field. */
export interface Untold {
  untold: string;
}

/** Whether the rules refused the input itself (not the answerer, not the moment). */
function isBadInput(error: unknown): error is QuestionOperationError {
  return (
    QuestionOperationError.isInstance(error) && (error.code === 'BAD_ANSWER' || error.code === 'INVALID_ARGS')
  );
}

/** Records clicks. */
export class SlackRecorder {
  constructor(
    readonly questions: SlackAnswering,
    private readonly names: SlackUserNames,
    private readonly replies: SlackReplies,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Reads the question; `undefined` (and the clicker told why) when it cannot be answered any more. */
  async pendingRecord(place: Place, workflowId: string): Promise<QuestionRecord | undefined> {
    let record: QuestionRecord;
    try {
      record = await this.questions.get(workflowId);
    } catch (error) {
      await this.replies.notRecorded(place, errorText(error));
      return undefined;
    }
    if (record.status === 'pending') return record;
    await this.replies.late(place, workflowId, record);
    return undefined;
  }

  /**
   * Records one answer, decline or decision under the clicker's name, and shows it in the message. Otherwise
   * returns why not: already told to the clicker, unless it is a bad input and `badInput` is `'modal'` (the modal
   * shows it beside its field instead).
   */
  async record(
    place: Place,
    workflowId: string,
    record: QuestionRecord,
    send: (name: string) => Promise<QuestionOutcome>,
    badInput: BadInputShown = 'ephemeral',
  ): Promise<Untold | undefined> {
    const name = await this.names.nameOf(place.user);
    let outcome: QuestionOutcome;
    try {
      outcome = await send(name);
    } catch (error) {
      return await this.refused(place, workflowId, error, badInput);
    }
    await this.replies.showResolved(place, workflowId, { ...outcome, questions: record.questions });
    return undefined;
  }

  /** A refused record: a late click is shown the winner, a bad input goes where `badInput` says. */
  private async refused(
    place: Place,
    workflowId: string,
    error: unknown,
    badInput: BadInputShown,
  ): Promise<Untold | undefined> {
    if (QuestionOperationError.isInstance(error) && error.code === 'ALREADY_RESOLVED') {
      await this.replies.tell(place, error.message);
      if (error.record !== undefined) await this.replies.showResolved(place, workflowId, error.record);
      return undefined;
    }
    if (isBadInput(error) && badInput === 'modal') return { untold: error.message };
    // The operation's own refusals (audience, timeout, no worker) are the clicker's to read; anything else is a fault.
    if (!QuestionOperationError.isInstance(error)) this.onError(error);
    await this.replies.notRecorded(place, errorText(error));
    return undefined;
  }
}
