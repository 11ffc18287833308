'use strict';
const { formatSlowestSuites, slowestSuites } = require('./slowest-suites');

/**
 * Prints the ten slowest test files after every run (beside jest's default
 * reporter), so a suite that grows slow is seen the day it does.
 */
class SlowestSuitesReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_testContexts, results) {
    if (results.testResults.length === 0) return;
    const totalMs = results.testResults.reduce(
      (sum, result) => sum + Math.max(0, result.perfStats.end - result.perfStats.start),
      0,
    );
    const lines = formatSlowestSuites(slowestSuites(results.testResults, this.rootDir), {
      wallMs: Date.now() - results.startTime,
      totalMs,
      fileCount: results.testResults.length,
    });
    process.stderr.write(`\n${lines.join('\n')}\n`);
  }
}

module.exports = SlowestSuitesReporter;
