export { buildRubric, registerRubric, rubricKinds, type RubricFactory, type RubricInput } from './rubrics';
export { RubricSpec, recordTurnReward, rewardFor, rewardIdempotencyKey, rubricInputOf, rubricOfTurn, type RewardLog } from './score';
