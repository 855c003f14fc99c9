// Prints the plain closing line CI reads: "N passed, N failed, N skipped".
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests: passed, numFailedTests: failed, numPendingTests: skipped, numTodoTests: todo } = results;
    const suitesFailed = results.numFailedTestSuites;
    if (suitesFailed && !failed) process.stdout.write(`${suitesFailed} test suites failed to run\n`);
    process.stdout.write(`\ntests: ${passed} passed, ${failed + (suitesFailed && !failed ? suitesFailed : 0)} failed, ${skipped + todo} skipped\n`);
  }
}
module.exports = SummaryReporter;
