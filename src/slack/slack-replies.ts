/**
 * What the clicker sees come back: the message rewritten to its resolved form (`chat.update`), and ephemeral
 * messages only they see (`chat.postEphemeral`) when nothing was recorded, saying why, or when an answer was
 * recorded but waits for a worker to validate it (the message then stays as it is: the question is not answered
 * until a worker takes it, and it may still refuse it).
 */
import type { WebClient } from '@slack/web-api';
import { approvalProgress } from '../answer/two-person-rule';
import { inboxLink } from '../question/inbox-link';
import { resolvedReason } from '../question/question-text';
import { staticMessage } from '../slack-messages';
import type { AnswerAwaitingWorker, QuestionRecord } from '../types';

/** Where a click happened: who clicked, and the message it was in. */
export interface Place {
  user: string;
  channel: string | undefined;
  ts: string | undefined;
}

/** `text` ending in a full stop. */
export function period(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** `text` as a sentence: capitalised, ending in a full stop. */
function sentence(text: string): string {
  const trimmed = period(text);
  return `${trimmed.charAt(0).toUpperCase()}${trimmed.slice(1)}`;
}

/** What the clicker is told of an answer recorded while no worker runs the question. */
export function awaitingWorkerText(waiting: AnswerAwaitingWorker): string {
  return `Recorded your answer (answer ${waiting.answerId}), but no worker took it: it waits for a worker on task queue ${waiting.taskQueue} to validate it. This message changes once a worker takes it; if the worker refuses it, the question's record (the inbox, ask-user show) says why.`;
}

/** The bot's replies to clicks. */
export class SlackReplies {
  /**
   * @param client the bot's client, made at the first reply
   * @param inboxUrl the inbox's address, for the "Open in the inbox" button of a rewritten message
   */
  constructor(
    private readonly client: () => Promise<WebClient>,
    private readonly inboxUrl: string | (() => string | undefined) | undefined,
  ) {}

  /** Tells the clicker alone. */
  async ephemeral(place: Place, text: string): Promise<void> {
    if (place.channel === undefined) return;
    await (await this.client()).chat.postEphemeral({ channel: place.channel, user: place.user, text });
  }

  /** Tells the clicker why nothing was recorded. */
  async notRecorded(place: Place, reason: string): Promise<void> {
    await this.ephemeral(place, `Not recorded: ${period(reason)}`);
  }

  /** Tells the clicker, as a sentence, e.g. why the question is no longer pending. */
  async tell(place: Place, text: string): Promise<void> {
    await this.ephemeral(place, sentence(text));
  }

  /**
   * Writes the resolved question over the message it was answered in. An answer that no worker took
   * (`awaitingWorker`) is told to the clicker instead, and the message keeps its controls.
   */
  async showResolved(
    place: Place,
    workflowId: string,
    record: QuestionRecord & { awaitingWorker?: AnswerAwaitingWorker },
  ): Promise<void> {
    if (record.awaitingWorker !== undefined) {
      await this.ephemeral(place, awaitingWorkerText(record.awaitingWorker));
      return;
    }
    const progress = record.status === 'pending' ? approvalProgress(record) : undefined;
    if (progress !== undefined) {
      // Counted toward the two-person rule: the call still waits, and its message is rewritten by the
      // approval.progress notification.
      await this.ephemeral(place, `Recorded your decision: ${progress}. The call waits for the rest.`);
      return;
    }
    if (place.channel === undefined || place.ts === undefined || record.status === 'pending') return;
    const base = typeof this.inboxUrl === 'function' ? this.inboxUrl() : this.inboxUrl;
    const message = staticMessage({
      event: record.approval === undefined ? 'question.resolved' : 'approval.decided',
      workflowId,
      record,
      ...(base === undefined ? {} : { link: inboxLink(base, workflowId) }),
    });
    const { text, blocks } = message;
    await (await this.client()).chat.update({ channel: place.channel, ts: place.ts, text, blocks });
  }

  /** A question no longer pending: the clicker is told who resolved it and when, and the message shows it. */
  async late(place: Place, workflowId: string, record: QuestionRecord): Promise<void> {
    await this.tell(place, resolvedReason(record) ?? `the question is ${record.status}`);
    await this.showResolved(place, workflowId, record);
  }
}
