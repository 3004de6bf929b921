/**
 * The reports `game-bridge-mcp test` writes beside its terminal output: JUnit XML for CI
 * (`--reporter junit --output f.xml`), a static HTML report a person opens
 * (`--reporter html --output dir/`), and JSON (what run_test reads); without --output, in
 * gamebridge-report/. Each file is written as a saved test is (shared/project-files.ts): never
 * through a link, never into a folder another user can write.
 */
import { basename, dirname, extname, join, relative, sep } from 'node:path';
import { create } from 'xmlbuilder2';
import { outputFolder, readProjectFile, writeProjectFile } from '../../shared/project-files.js';
import { escapeHtml as h } from '../../shared/trace.js';
import type { TestResult } from './replay.js';
import { checked } from './results.js';
import { MAX_BASELINE_BYTES } from './screenshot.js';

export const REPORTERS = ['list', 'junit', 'html', 'json'] as const;
export type Reporter = (typeof REPORTERS)[number];

const failureLines = (r: TestResult) => {
  const f = r.failure;
  if (!f) return '';
  return [
    `${relative(process.cwd(), r.file)}:${f.line} ${f.step}`,
    f.condition ? `${checked(f).label}: ${checked(f).text}` : '',
    f.expected !== undefined ? `expected: ${f.expected}` : '',
    f.condition ? `actual: ${JSON.stringify(f.actual)}` : '',
    f.message,
    f.state !== undefined ? `state (${f.statePath}): ${JSON.stringify(f.state)?.slice(0, 4000)}` : '',
    r.trace ? `trace: ${relative(process.cwd(), r.trace)}` : '',
  ]
    .filter(Boolean)
    .join('\n');
};

/**
 * JUnit XML as CI servers read it: one suite, a case per test with its shard as a property, a
 * failure's first line as its message and the whole report as its text, and a test that passed on
 * a retry carrying its first failure as surefire's flakyFailure. Characters XML 1.0 cannot hold
 * (control characters a game's state may carry) are dropped.
 */
export function junitXml(results: TestResult[]): string {
  const failures = String(results.filter((r) => !r.ok).length);
  const tests = String(results.length);
  const time = (results.reduce((a, r) => a + r.ms, 0) / 1000).toFixed(3);
  const doc = create({ version: '1.0', encoding: 'UTF-8', invalidCharReplacement: '' });
  const suite = doc
    .ele('testsuites', { name: 'game-bridge-mcp test', tests, failures, errors: '0', time })
    .ele('testsuite', { name: 'gamebridge-tests', tests, failures, errors: '0', skipped: '0', time });
  for (const r of results) {
    const c = suite.ele('testcase', {
      name: r.name,
      classname: relative(process.cwd(), r.file),
      time: (r.ms / 1000).toFixed(3),
    });
    if (r.shard) c.ele('properties').ele('property', { name: 'shard', value: r.shard });
    const f = r.flaky?.failure ?? r.failure;
    if (f && (r.flaky || !r.ok)) {
      c.ele(r.flaky ? 'flakyFailure' : 'failure', {
        message: f.message.split('\n')[0].slice(0, 500),
        type: f.condition ? 'expect' : 'step',
      }).txt(failureLines({ ...r, failure: f }));
    }
  }
  return doc.end({ prettyPrint: true }) + '\n';
}

/** The row naming what was checked: the path alone when the condition is the path and the expected value. */
function checkedRow(condition: string, expected: string | undefined): string {
  const c = checked({ condition, expected });
  return `<tr><th>${c.label}</th><td><code>${h(c.text)}</code></td></tr>`;
}

/** A time as a person reads it: this machine's local time, with its zone. */
export const localTime = (d: Date) =>
  d.toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
  });

function htmlReport(results: TestResult[], dir: string): string {
  const failed = results.filter((r) => !r.ok).length;
  const flaky = results.filter((r) => r.flaky).length;
  const now = new Date();
  const img = (label: string, src: string | undefined, k: number) => {
    // the test's own pictures only: never one a link names, never another user's
    let png: Buffer | undefined;
    try {
      png = src ? readProjectFile(src, MAX_BASELINE_BYTES) : undefined;
    } catch {
      png = undefined;
    }
    if (!src || !png) return '';
    const name = `${k}-${label}-${basename(src)}`;
    writeProjectFile(join(dir, name), png);
    return `<figure><a href="${h(name)}" title="Open it at full size"><img src="${h(name)}" alt="${h(label)}"></a><figcaption>${h(label)}</figcaption></figure>`;
  };
  const body = results
    .map((r, k) => {
      const f = r.failure;
      const steps = r.steps
        .map(
          (s) =>
            `<li class="${s.ok ? 'ok' : 'bad'}"><span class="mark">${s.ok ? '✓' : '✗'}</span> <code>${h(s.text)}</code> <span class="line">line ${s.line} · ${s.ms} ms</span></li>`,
        )
        .join('');
      const facts = f
        ? `<div class="failure"><p class="msg">${h(f.message)}</p>` +
          (f.condition
            ? `<table>${checkedRow(f.condition, f.expected)}<tr><th>expected</th><td><code>${h(f.expected ?? '')}</code></td></tr><tr><th>actual</th><td><code>${h(JSON.stringify(f.actual) ?? 'nothing')}</code></td></tr></table>`
            : '') +
          (f.state !== undefined
            ? `<p>State at the failure (<code>${h(f.statePath ?? '')}</code>):</p><pre>${h(JSON.stringify(f.state, null, 2)?.slice(0, 20000) ?? '')}</pre>`
            : '') +
          (f.images
            ? `<div class="shots">${img('actual', f.images.actual, k)}${img('baseline', f.images.baseline, k)}${img('diff', f.images.diff, k)}</div>`
            : '') +
          '</div>'
        : '';
      return `<details class="test ${r.ok ? 'ok' : 'bad'}"${r.ok ? '' : ' open'}><summary><span class="mark">${r.flaky ? '~' : r.ok ? '✓' : '✗'}</span> ${h(r.name)}${r.flaky ? ` <span class="flaky">flaky: passed on retry ${r.flaky.retries}</span>` : ''}${r.shard ? ` <span class="shard">shard ${h(r.shard)}</span>` : ''} <span class="time">${(r.ms / 1000).toFixed(1)} s</span> <span class="file">${h(relative(process.cwd(), r.file))}</span>${r.trace ? ` <a class="trace" href="${h(encodeURI(relative(dir, r.trace).split(sep).join('/')))}">trace</a>` : ''}</summary>${facts}<ol class="steps">${steps}</ol></details>`;
    })
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>game-bridge-mcp test report</title><style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#1d2330}
h1{font-size:1.4rem}.sum{margin-bottom:1rem}.sum .bad{color:#b3261e}.sum .ok{color:#1e7a34}
details{border:1px solid #d5d9e0;border-radius:6px;margin:.5rem 0;padding:.4rem .8rem}
details.bad{border-color:#e3a19c;background:#fff7f6}summary{cursor:pointer;font-weight:600}
.ok>summary .mark,li.ok .mark{color:#1e7a34}.bad>summary .mark,li.bad .mark{color:#b3261e}
.flaky{color:#a15c00}a.trace{font-weight:400;font-size:.85em;margin-left:.5rem}.time,.shard,.file,.line{color:#6b7280;font-weight:400;font-size:.85em;margin-left:.5rem}
.steps{padding-left:1.4rem}.steps li{margin:.1rem 0}.msg{white-space:pre-wrap;font-family:ui-monospace,monospace}
pre{background:#f3f4f6;padding:.6rem;overflow:auto;max-height:22rem}table{border-collapse:collapse}th{text-align:left;padding-right:1rem;color:#6b7280}
.shots{display:flex;gap:1rem;flex-wrap:wrap}figure{margin:0;flex:1 1 320px;max-width:100%}img{display:block;max-width:100%;border:1px solid #d5d9e0;image-rendering:pixelated;cursor:zoom-in}figcaption{text-align:center;color:#6b7280}
</style></head><body><h1>game-bridge-mcp test</h1><p class="sum"><span class="ok">${results.length - failed - flaky} passed</span>, ${flaky ? `<span class="flaky">${flaky} flaky</span>, ` : ''}<span class="bad">${failed} failed</span> · <time datetime="${now.toISOString()}">${h(localTime(now))}</time></p>
${body}
</body></html>
`;
}

/** Where a report goes without --output: one folder below the current one for all three. */
export const DEFAULT_OUTPUT: Record<Exclude<Reporter, 'list'>, string> = {
  junit: join('gamebridge-report', 'junit.xml'),
  json: join('gamebridge-report', 'results.json'),
  html: 'gamebridge-report',
};

/**
 * Where a report's traces go: an HTML report's (or a blob's) folder's traces/; beside a JUnit or
 * JSON file, a folder named after it (`ci/results.xml`: `ci/results.traces/`), so that a file
 * written into a folder shared with others (/tmp) does not fill that folder's traces/.
 */
export function tracesFolder(reporter: Exclude<Reporter, 'list'> | 'blob', output: string): string {
  if (reporter === 'html' || reporter === 'blob') return join(output, 'traces');
  return join(dirname(output), `${basename(output, extname(output)) || basename(output)}.traces`);
}

/** Write the report; the line that says where it went (the file to open, for html). */
export function writeReport(reporter: Exclude<Reporter, 'list'>, output: string, results: TestResult[]): string {
  if (reporter === 'html') {
    outputFolder(output);
    writeProjectFile(join(output, 'index.html'), htmlReport(results, output));
    return `HTML report: ${join(output, 'index.html')}`;
  }
  outputFolder(dirname(output));
  writeProjectFile(output, reporter === 'junit' ? junitXml(results) : JSON.stringify({ tests: results }, null, 2));
  return `${reporter === 'junit' ? 'JUnit' : 'JSON'} report: ${output}`;
}
