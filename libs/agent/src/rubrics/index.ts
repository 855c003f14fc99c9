export { buildRubric, registerRubric, rubricKinds, type RubricFactory, type RubricInput } from './rubrics';
