'use strict';
// Plain JavaScript so jest can load it as a reporter without a transform.
const { relative } = require('node:path');

/**
 * The `count` slowest test files of a run, slowest first: each file's path
 * relative to `rootDir`, its project's name and its wall time in ms.
 */
function slowestSuites(testResults, rootDir, count = 10) {
  return testResults
    .map((result) => ({
      file: relative(rootDir, result.testFilePath),
      project: result.displayName ? result.displayName.name : '',
      ms: Math.max(0, result.perfStats.end - result.perfStats.start),
    }))
    .sort((a, b) => b.ms - a.ms || a.file.localeCompare(b.file))
    .slice(0, count);
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * The lines printed at the end of a run: a heading, one aligned line per
 * suite (seconds, project, file) and the run's wall time next to the sum
 * of every file's time (their ratio is how much the workers overlapped).
 */
function formatSlowestSuites(suites, { wallMs, totalMs, fileCount }) {
  const width = Math.max(0, ...suites.map((suite) => seconds(suite.ms).length));
  const projectWidth = Math.max(0, ...suites.map((suite) => suite.project.length));
  const lines = [`Slowest ${suites.length} of ${fileCount} test files:`];
  for (const suite of suites) {
    const project = projectWidth > 0 ? `${suite.project.padEnd(projectWidth)}  ` : '';
    lines.push(`  ${seconds(suite.ms).padStart(width)}  ${project}${suite.file}`);
  }
  lines.push(`Total: ${seconds(wallMs)} wall time, ${seconds(totalMs)} summed over all files.`);
  return lines;
}

module.exports = { slowestSuites, formatSlowestSuites };
