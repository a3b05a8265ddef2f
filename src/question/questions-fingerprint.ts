/**
 * A short fingerprint of a tool call's questions, kept in the question's memo. A re-ask with the same tool
 * call id compares fingerprints in one lookup: equal means the same question (re-attach), different means the
 * id was reused for other questions (`ASK_CONFLICT`).
 *
 * Workflow-safe and dependency-free (no `crypto` in the sandbox): two 53-bit multiplicative hashes with
 * different seeds over a canonical JSON text. It guards against accidental reuse by the same agent, not
 * against an adversary crafting collisions.
 */
import type { ApprovalSubject, AskUserQuestion } from '../types';

/** Canonical form: fixed key order, absent optional fields left out, `multiSelect: false` same as absent. */
function canonical(questions: readonly AskUserQuestion[]): string {
  return JSON.stringify(
    questions.map((question) => [
      question.id,
      question.question,
      question.header ?? null,
      (question.options ?? []).map((option) => [option.label, option.description ?? null]),
      question.multiSelect === true,
    ]),
  );
}

function hash53(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** 28 hex digits identifying the questions' content. */
export function questionsFingerprint(questions: readonly AskUserQuestion[]): string {
  const text = canonical(questions);
  return [1, 2].map((seed) => hash53(text, seed).toString(16).padStart(14, '0')).join('');
}

/**
 * 28 hex digits identifying an approval's tool call: the tool and its input (the description and schema are
 * the caller's wording, not the call). Prefixed so that it never equals a question's.
 */
export function approvalFingerprint(subject: Pick<ApprovalSubject, 'toolName' | 'input'>): string {
  const text = JSON.stringify(['approval', subject.toolName, subject.input ?? null]);
  return [3, 4].map((seed) => hash53(text, seed).toString(16).padStart(14, '0')).join('');
}
