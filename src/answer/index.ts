export { checkAnswer, serializeAnswer, isRecommendedLabel, RECOMMENDED_SUFFIX } from './answer-rules';
export type { AnswerCheck, AnswerRule } from './answer-rules';
