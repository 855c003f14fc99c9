// The quorum arithmetic lives in @hub/domain (the session decider applies it); re-exported here
// so the policy's users find it next to the rules that set its terms.
export { tally, whyNotEligible, describeApprovers, type QuorumTerms, type Tally, type Vote, type Voter } from '@hub/domain';
