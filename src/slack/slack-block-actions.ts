/**
 * A click in a message (`block_actions`): an option button or Submit answers, Approve approves, and Other…,
 * Decline…, Deny… and Edit… open their modal. Selects and checkboxes only hold state until Submit, and the inbox
 * button opens a page: neither is handled.
 */
import type { WebClient } from '@slack/web-api';
import { isPlainObject } from '../common';
import { SLACK_ACTIONS, decodeRef, type SlackActionRef } from '../slack-messages';
import type { QuestionRecord } from '../types';
import { editModal, encodeViewContext, otherModal, reasonModal, type SlackViewContext } from './slack-modals';
import { answerFrom, chosenFromState, objectAt, stringAt, type Json } from './slack-payload';
import type { SlackRecorder } from './slack-recorder';
import type { Place, SlackReplies } from './slack-replies';

/** What handling a click needs. */
export interface BlockActionDeps {
  recorder: SlackRecorder;
  replies: SlackReplies;
  client: () => Promise<WebClient>;
}

/** A click, read: who clicked what, where, on which pending question. */
interface Click {
  actionId: string;
  ref: SlackActionRef;
  place: Place;
  triggerId: string | undefined;
  payload: Json;
  record: QuestionRecord;
}

/** The modal a click opens. */
type ModalView = Parameters<WebClient['views']['open']>[0]['view'];

/** Handles one click; the clicker sees the outcome through the message, an ephemeral message or a modal. */
export async function handleBlockAction(payload: Json, deps: BlockActionDeps): Promise<void> {
  const actions = Array.isArray(payload.actions) ? (payload.actions as unknown[]) : [];
  const action = actions[0];
  const user = stringAt(objectAt(payload, 'user'), 'id');
  const ref = decodeRef(isPlainObject(action) ? action.value : undefined);
  if (user === undefined || ref === undefined) return;
  const container = objectAt(payload, 'container');
  const place: Place = {
    user,
    channel: stringAt(objectAt(payload, 'channel'), 'id') ?? stringAt(container, 'channel_id'),
    ts: stringAt(container, 'message_ts') ?? stringAt(objectAt(payload, 'message'), 'ts'),
  };
  const record = await deps.recorder.pendingRecord(place, ref.workflowId);
  if (record === undefined) return;
  const actionId = stringAt(action, 'action_id') ?? '';
  const click: Click = { actionId, ref, place, triggerId: stringAt(payload, 'trigger_id'), payload, record };
  if (actionId.startsWith(`${SLACK_ACTIONS.answer}.`) || actionId === SLACK_ACTIONS.submit) {
    await answerClicked(click, deps);
  } else if (actionId === SLACK_ACTIONS.approve) {
    const { workflowId } = ref;
    await deps.recorder.record(place, workflowId, record, (name) =>
      deps.recorder.questions.decide(workflowId, { type: 'approve', decidedBy: name }),
    );
  } else {
    await openModalFor(click, deps);
  }
}

/** An option button (answers at once) or Submit (answers with every control's state). */
async function answerClicked(click: Click, deps: BlockActionDeps): Promise<void> {
  const { place, record, ref } = click;
  const chosen =
    click.actionId === SLACK_ACTIONS.submit
      ? chosenFromState(objectAt(click.payload, 'state')?.values, record.questions.length)
      : record.questions.map((_question, index) => (index === ref.question ? [ref.option ?? -1] : null));
  if (chosen.every((entry) => entry === null || entry.length === 0)) {
    await deps.replies.ephemeral(
      place,
      'Nothing chosen yet: pick an option first, or use Other… to write an answer.',
    );
    return;
  }
  const answer = answerFrom(record.questions, chosen);
  if (!answer.ok) {
    await deps.replies.notRecorded(place, answer.reason);
    return;
  }
  const { workflowId } = ref;
  await deps.recorder.record(place, workflowId, record, (name) =>
    deps.recorder.questions.answer(workflowId, { answers: answer.answers, answeredBy: name }),
  );
}

/** The modal a button opens, or `undefined` for a control that opens none. */
function modalFor(click: Click, metadata: (extra?: Partial<SlackViewContext>) => string | undefined) {
  const { actionId, record, ref } = click;
  switch (actionId) {
    case SLACK_ACTIONS.other: {
      const question = Math.min(ref.question ?? 0, Math.max(0, record.questions.length - 1));
      // Several questions: the modal answers them all, with what the message held when it opened.
      const chosen =
        record.questions.length > 1
          ? chosenFromState(objectAt(click.payload, 'state')?.values, record.questions.length)
          : undefined;
      const context = metadata(chosen === undefined ? { question } : { question, chosen });
      return context === undefined ? undefined : otherModal(record.questions, context, question);
    }
    case SLACK_ACTIONS.decline:
    case SLACK_ACTIONS.deny: {
      const context = metadata();
      const kind = actionId === SLACK_ACTIONS.decline ? 'decline' : 'deny';
      return context === undefined ? undefined : reasonModal(kind, context);
    }
    case SLACK_ACTIONS.edit: {
      const context = metadata();
      return context === undefined || record.approval === undefined ? undefined : editModal(record, context);
    }
    default:
      return undefined;
  }
}

/** Opens the modal of Other…, Decline…, Deny… or Edit…, remembering the message it was opened from. */
async function openModalFor(click: Click, deps: BlockActionDeps): Promise<void> {
  const { place, ref, triggerId } = click;
  if (triggerId === undefined || place.channel === undefined || place.ts === undefined) return;
  const at = { workflowId: ref.workflowId, channel: place.channel, ts: place.ts };
  const view: ModalView | undefined = modalFor(click, (extra = {}) => encodeViewContext({ ...at, ...extra }));
  if (view === undefined) return;
  await (await deps.client()).views.open({ trigger_id: triggerId, view });
}
