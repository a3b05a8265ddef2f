export {
  checkAnswer,
  serializeAnswer,
  isRecommendedLabel,
  MAX_ANSWER_BYTES,
  MAX_CUSTOM_LENGTH,
  RECOMMENDED_SUFFIX,
} from './answer-rules';
export type { AnswerCheck, AnswerRule } from './answer-rules';
export { codePointLength, jsonByteLength, utf8ByteLength } from './json-size';
export { DECISION_TYPES, checkDecision, schemaProblem } from './decision-rules';
export type { DecisionCheck, DecisionRule } from './decision-rules';
export { canonicalJson, inputSha256, sameJson } from './input-hash';
export { decisionBindingProblem, decisionHashes } from './decision-binding';
