export { buildRubric, registerRubric, rubricKinds, type RubricFactory, type RubricInput } from './rubrics';
export { RUBRIC_ACTOR, RubricSpec, recordTurnReward, rewardFor, rewardIdempotencyKey, rubricInputOf, rubricOfTurn, type RewardLog } from './score';
export { turnEndedScoring } from './turn-ended';
