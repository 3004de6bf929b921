/**
 * A trace: what happened, step by step, as one self-contained HTML file a person opens anywhere
 * (docs/TESTS.md, "Traces"). Each step keeps its call, its answer, how the state differs from the
 * step before (shared/state-diff.ts), the game's screenshot after it when there is one, its frame
 * and its time. The runner writes one per test (`game-bridge-mcp test --trace`), the daemon one of
 * a session's recording (`save_trace`, the dashboard's "Download trace"). The data is inlined as
 * JSON and drawn by a small script with text only (nothing in it is ever parsed as HTML), under a
 * policy that lets the page load nothing from anywhere.
 */
import { parentPath, valueAt } from './state-path.js';
import { stateDiff } from './state-diff.js';

export const TRACE_FORMAT = 1;

/** One value as the trace shows it: JSON text, cut past this many characters. */
const MAX_VALUE_CHARS = 2000;
/** An answer or an error, cut past this many characters. */
const MAX_ANSWER_CHARS = 20000;
/** The first state, shown whole, cut past this many characters. */
const MAX_STATE_CHARS = 200000;
/** Changes listed per step; the rest are counted. */
const MAX_CHANGES = 200;
/** A screenshot bigger than this is left out (its step says so). */
export const MAX_SHOT_BYTES = 1 << 20;
/** Screenshots kept per trace, in bytes; later steps say they were left out. */
const MAX_SHOTS_BYTES = 48 << 20;

export interface TraceChange {
  path: string;
  /** JSON text; absent: the path was not there before */
  before?: string;
  /** JSON text; absent: the path is gone */
  after?: string;
}

export interface TraceStep {
  kind: 'launch' | 'do' | 'expect' | 'check';
  /** the step in a line: `bridge.press {"input":"right"} @0`, `expect game.score gte 40` */
  title: string;
  ok: boolean;
  /** its line in the test file */
  line?: number;
  /** the call as made (name and arguments) */
  call?: { name: string; arguments: Record<string, unknown> };
  /** the answer, as JSON text */
  answer?: string;
  /** why it failed */
  error?: string;
  changes: TraceChange[];
  /** changes past the ones listed */
  more: number;
  /** the whole state, as JSON text: on the first step that has one */
  state?: string;
  /** the state was not read after this step (the list of changes means nothing then) */
  noState?: boolean;
  /** what the step checked (an expect or a check): the path and its value in the state after it */
  checked?: { path: string; value?: string; around?: { path: string; value?: string } };
  /** index into the trace's `shots` */
  shot?: number;
  /** why there is no screenshot */
  shotNote?: string;
  /** the simFrame it began at (a test file's `atSimFrame`): `@N` in the step list */
  fromSimFrame?: number;
  /** the simFrame and frame read after it */
  simFrame?: number;
  frame?: number;
  /** milliseconds since the trace began */
  atMs: number;
  /** how long the step took */
  ms?: number;
}

export interface Trace {
  gamebridgeTrace: typeof TRACE_FORMAT;
  title: string;
  /** where it comes from: the test file, or the session and port */
  source: string;
  game?: { name: string; version?: string };
  started: string;
  outcome: 'passed' | 'failed' | 'recorded';
  /** the failure as the runner printed it */
  failure?: string;
  /** what the trace does not hold, in a sentence (a recording's dropped steps) */
  note?: string;
  steps: TraceStep[];
  /** PNGs, base64; a step names one by index (a picture that did not change is kept once) */
  shots: string[];
}

const cut = (s: string, max: number) =>
  s.length > max ? `${s.slice(0, max)}… (${s.length - max} more characters)` : s;
const json = (v: unknown, max: number, pretty = false) =>
  v === undefined ? undefined : cut(JSON.stringify(v, null, pretty ? 2 : undefined) ?? String(v), max);

/** What a step brings: the rest (changes, screenshot index) the builder works out. */
export interface StepInput {
  kind: TraceStep['kind'];
  title: string;
  ok: boolean;
  line?: number;
  call?: TraceStep['call'];
  answer?: unknown;
  error?: string;
  /** the path an expect or a check read: its value in the state after the step is shown */
  checkPath?: string;
  fromSimFrame?: number;
  simFrame?: number;
  frame?: number;
  atMs: number;
  ms?: number;
}

/** A trace built step by step: each step's state is compared with the one before. */
export class TraceBuilder {
  readonly trace: Trace;
  private prev: unknown;
  private hasPrev = false;
  private lastShot?: string;
  private shotBytes = 0;

  constructor(meta: Pick<Trace, 'title' | 'source' | 'game' | 'note'>, started = new Date()) {
    this.trace = {
      gamebridgeTrace: TRACE_FORMAT,
      ...meta,
      started: started.toISOString(),
      outcome: 'recorded',
      steps: [],
      shots: [],
    };
  }

  /** Add a step with the state after it (undefined: not read) and the screenshot after it, if any. */
  add(input: StepInput, state?: unknown, png?: Buffer | string, shotNote?: string): TraceStep {
    const { answer, checkPath, ...rest } = input;
    // A step began where the one before it ended, unless it says otherwise (a replay steps to its atSimFrame).
    const before = this.trace.steps[this.trace.steps.length - 1]?.simFrame;
    const step: TraceStep = {
      ...(before !== undefined ? { fromSimFrame: before } : {}),
      ...rest,
      ...(answer !== undefined ? { answer: json(answer, MAX_ANSWER_CHARS, true) } : {}),
      ...(rest.error !== undefined ? { error: cut(rest.error, MAX_ANSWER_CHARS) } : {}),
      changes: [],
      more: 0,
    };
    if (checkPath !== undefined && state !== undefined) step.checked = checked(state, checkPath);
    if (state === undefined) step.noState = true;
    else if (!this.hasPrev) {
      step.state = json(state, MAX_STATE_CHARS, true);
      this.prev = state;
      this.hasPrev = true;
    } else {
      const d = stateDiff(this.prev, state, { max: MAX_CHANGES });
      step.changes = d.changes.map((c) => ({
        path: c.path,
        ...('before' in c ? { before: json(c.before, MAX_VALUE_CHARS) } : {}),
        ...('after' in c ? { after: json(c.after, MAX_VALUE_CHARS) } : {}),
      }));
      step.more = d.more;
      this.prev = state;
    }
    this.picture(step, png, shotNote);
    this.trace.steps.push(step);
    return step;
  }

  private picture(step: TraceStep, png: Buffer | string | undefined, note: string | undefined): void {
    if (png === undefined) {
      if (note) step.shotNote = note;
      return;
    }
    const b64 = typeof png === 'string' ? png : png.toString('base64');
    const bytes = Math.floor((b64.length * 3) / 4);
    if (b64 === this.lastShot) step.shot = this.trace.shots.length - 1;
    else if (bytes > MAX_SHOT_BYTES)
      step.shotNote = `the screenshot (${bytes} bytes) is bigger than the ${MAX_SHOT_BYTES} a trace keeps`;
    else if (this.shotBytes + bytes > MAX_SHOTS_BYTES)
      step.shotNote = `left out: the trace already holds ${MAX_SHOTS_BYTES >> 20} MiB of screenshots`;
    else {
      this.trace.shots.push(b64);
      this.shotBytes += bytes;
      this.lastShot = b64;
      step.shot = this.trace.shots.length - 1;
    }
  }

  /** The trace as a self-contained HTML page. */
  html(): string {
    return traceHtml(this.trace);
  }
}

/** What a check read: the path's value, and the object around it when there is one. */
function checked(state: unknown, path: string): NonNullable<TraceStep['checked']> {
  const at = valueAt(state, path);
  const parent = parentPath(path);
  const around = parent !== undefined ? valueAt(state, parent) : undefined;
  return {
    path,
    ...(at.found ? { value: json(at.value, MAX_VALUE_CHARS) } : {}),
    ...(parent !== undefined && around?.found
      ? { around: { path: parent, value: json(around.value, MAX_VALUE_CHARS, true) } }
      : {}),
  };
}

/** JSON inside a <script> element: nothing in it can end the element or the page's script. */
const scriptJson = (v: unknown) =>
  JSON.stringify(v)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/** Text as HTML character data or a quoted attribute value. */
export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The trace page: the data inline, the viewer inline, nothing fetched. */
export function traceHtml(trace: Trace): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="game-bridge-mcp trace ${TRACE_FORMAT}">
<title>Trace: ${escapeHtml(trace.title)}</title>
<style>${STYLE}</style></head>
<body>
<header><h1 id="title"></h1><p id="meta"></p><pre id="failure" hidden></pre></header>
<main>
<nav aria-label="Steps"><ol id="steps"></ol></nav>
<section id="step" aria-live="polite">
<div class="bar"><button id="prev" type="button" title="Previous step (↑ or k)">← Previous</button><span id="pos"></span><button id="next" type="button" title="Next step (↓ or j)">Next →</button></div>
<h2 id="step-title"></h2>
<p id="step-meta"></p>
<pre id="step-error" class="error" hidden></pre>
<div class="cols">
<div class="col shot"><h3>Screenshot after this step</h3><figure id="shot"></figure></div>
<div class="col"><div id="checked-box" hidden><h3>State it checked</h3><table id="checked"><thead><tr><th>path</th><th>value after the step</th></tr></thead><tbody></tbody></table></div>
<h3 id="changes-title">State changes</h3><table id="changes"><thead><tr><th>path</th><th>before</th><th>after</th></tr></thead><tbody></tbody></table><p id="changes-note"></p></div>
</div>
<details id="call-box" open><summary>Call</summary><pre id="call"></pre></details>
<details id="answer-box" open><summary>Answer</summary><pre id="answer"></pre></details>
<details id="state-box"><summary>Whole state</summary><pre id="state"></pre></details>
</section>
</main>
<dialog id="zoom" aria-label="The screenshot at full size"><form method="dialog"><button type="submit" title="Close (Esc)">Close</button></form><img id="zoom-img" alt=""></dialog>
<script type="application/json" id="trace-data">${scriptJson(trace)}</script>
<script>${VIEWER}</script>
</body></html>
`;
}

const STYLE = `
*{box-sizing:border-box}body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#fafbfc}
header{padding:.8rem 1.2rem;border-bottom:1px solid #d5d9e0;background:#fff}h1{font-size:1.25rem;margin:0 0 .2rem}
#meta{margin:0;color:#4b5563}.passed{color:#1e7a34;font-weight:600}.failed{color:#b3261e;font-weight:600}.recorded{color:#1d4ed8;font-weight:600}
#failure{white-space:pre-wrap;background:#fff1f0;border:1px solid #e3a19c;padding:.5rem;margin:.5rem 0 0;max-height:9rem;overflow:auto}
main{display:flex;height:calc(100vh - 5.5rem);min-height:420px}
nav{width:34%;max-width:440px;min-width:220px;overflow:auto;border-right:1px solid #d5d9e0;background:#fff}
#steps{list-style:none;margin:0;padding:0}#steps li{padding:.3rem .6rem;border-bottom:1px solid #eef0f3;cursor:pointer;display:flex;gap:.4rem;align-items:baseline}
#steps li:hover{background:#f3f6fb}#steps li.sel{background:#dbe7fb}#steps li .n{color:#6b7280;min-width:2.2em;text-align:right;font-size:.85em}
#steps li .t{font-family:ui-monospace,monospace;font-size:.85em;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;flex:1}
#steps li .f{color:#6b7280;font-size:.8em}.mk{font-weight:700}.mk.ok{color:#1e7a34}.mk.bad{color:#b3261e}
section{flex:1;overflow:auto;padding:.8rem 1.2rem}.bar{display:flex;gap:.8rem;align-items:center}
button{font:inherit;padding:.25rem .8rem;border:1px solid #9aa3b2;border-radius:4px;background:#fff;cursor:pointer}button:disabled{opacity:.4;cursor:default}
h2{font:600 1rem ui-monospace,monospace;margin:.7rem 0 .2rem;word-break:break-all}h3{font-size:.9rem;margin:.6rem 0 .3rem;color:#374151}
#step-meta{color:#4b5563;margin:0}.error{white-space:pre-wrap;background:#fff1f0;border:1px solid #e3a19c;padding:.5rem}
.cols{display:flex;gap:1.2rem;flex-wrap:wrap}.col{flex:2 1 280px;min-width:0}
figure{margin:0}figure img{display:block;max-width:100%;max-height:calc(100vh - 14rem);height:auto;object-fit:contain;border:1px solid #d5d9e0;image-rendering:pixelated;background:#fff;cursor:zoom-in}figure p{color:#6b7280}figcaption{color:#6b7280;font-size:.8em}
.col.shot{flex:3 1 420px}dialog{padding:.5rem;border:1px solid #9aa3b2;max-width:98vw;max-height:98vh}dialog::backdrop{background:rgba(0,0,0,.6)}dialog form{text-align:right;margin-bottom:.3rem}#zoom-img{display:block;max-width:calc(98vw - 1.5rem);max-height:calc(98vh - 4rem);height:auto;object-fit:contain;image-rendering:pixelated;cursor:zoom-out}
#checked td:first-child{white-space:nowrap;word-break:normal;width:1%}#checked td.a{white-space:pre-wrap}
table{border-collapse:collapse;width:100%;font:12px ui-monospace,monospace}th{text-align:left;color:#6b7280;font-weight:600;border-bottom:1px solid #d5d9e0;padding:.2rem .4rem}
td{border-bottom:1px solid #eef0f3;padding:.2rem .4rem;vertical-align:top;word-break:break-all}td.b{background:#fdecec}td.a{background:#e8f6ec}td.none{color:#9ca3af;font-style:italic}
pre{background:#f3f4f6;padding:.5rem;overflow:auto;max-height:22rem;font-size:12px;margin:.2rem 0}summary{cursor:pointer;font-weight:600;color:#374151;margin-top:.5rem}
`;

/** The viewer: draws the step list and one step; every value goes in as text. */
const VIEWER = `
(function(){
var T=JSON.parse(document.getElementById('trace-data').textContent);
var $=function(id){return document.getElementById(id)};
function el(tag,attrs,text){var e=document.createElement(tag);for(var k in attrs||{})e.setAttribute(k,attrs[k]);if(text!=null)e.textContent=String(text);return e}
var ms=function(v){return v<1000?v+' ms':(v/1000).toFixed(2)+' s'};
$('title').textContent=T.title;
var when=new Date(T.started),local=isNaN(when.getTime())?T.started:when.toLocaleString(undefined,{year:'numeric',month:'short',day:'numeric',hour:'2-digit',minute:'2-digit',second:'2-digit',timeZoneName:'short'});
var meta=$('meta');meta.append(el('span',{'class':T.outcome},T.outcome),' · '+T.steps.length+' step'+(T.steps.length===1?'':'s')+' · '+T.source+(T.game?' · '+T.game.name+(T.game.version?' '+T.game.version:''):'')+' · ',el('time',{datetime:T.started,title:T.started},local),T.note?' · '+T.note:'');
if(T.failure){$('failure').hidden=false;$('failure').textContent=T.failure}
var list=$('steps'),items=[];
T.steps.forEach(function(s,i){var li=el('li',{'data-i':String(i),id:'s'+i});li.append(el('span',{'class':'n'},i+1),el('span',{'class':'mk '+(s.ok?'ok':'bad')},s.ok?'✓':'✗'),el('span',{'class':'t',title:s.title},s.title));if(s.fromSimFrame!=null)li.append(el('span',{'class':'f',title:'began at simFrame '+s.fromSimFrame},'@'+s.fromSimFrame));li.onclick=function(){show(i)};list.append(li);items.push(li)});
var cur=-1;
function show(i){if(!T.steps.length)return;i=Math.max(0,Math.min(T.steps.length-1,i));if(cur>=0)items[cur].classList.remove('sel');cur=i;var s=T.steps[i];items[i].classList.add('sel');items[i].scrollIntoView({block:'nearest'});
if(location.hash!=='#'+(i+1))history.replaceState(null,'','#'+(i+1));
$('pos').textContent='step '+(i+1)+' of '+T.steps.length;$('prev').disabled=i===0;$('next').disabled=i===T.steps.length-1;
$('step-title').textContent=(s.ok?'✓ ':'✗ ')+s.title;
var m=[s.kind];if(s.line!=null)m.push('line '+s.line);if(s.fromSimFrame!=null&&s.simFrame!=null&&s.simFrame!==s.fromSimFrame)m.push('simFrame '+s.fromSimFrame+' → '+s.simFrame);else if(s.fromSimFrame!=null||s.simFrame!=null)m.push('simFrame '+(s.fromSimFrame!=null?s.fromSimFrame:s.simFrame));if(s.frame!=null)m.push('frame '+s.frame+' after it');m.push('at +'+ms(s.atMs));if(s.ms!=null)m.push('took '+ms(s.ms));$('step-meta').textContent=m.join(' · ');
$('step-error').hidden=!s.error;$('step-error').textContent=s.error||'';
var f=$('shot');f.replaceChildren();if(s.shot!=null){var im=el('img',{src:'data:image/png;base64,'+T.shots[s.shot],alt:'the game after step '+(i+1),title:'Click to see it at full size'}),cap=el('figcaption');im.onload=function(){fit(im,f.clientWidth,innerHeight-224);cap.textContent=im.naturalWidth+'×'+im.naturalHeight+' px · click to enlarge'};im.onclick=zoom;f.append(im,cap)}else f.append(el('p',{},s.shotNote||'no screenshot after this step'));
var cb=$('checked').tBodies[0];cb.replaceChildren();$('checked-box').hidden=!s.checked;if(s.checked){[[s.checked.path,s.checked.value]].concat(s.checked.around?[[s.checked.around.path,s.checked.around.value]]:[]).forEach(function(r){var tr=el('tr');tr.append(el('td',{},r[0]),r[1]===undefined?el('td',{'class':'none'},'absent'):el('td',{'class':'a'},r[1]));cb.append(tr)})}
var tb=$('changes').tBodies[0];tb.replaceChildren();var n=$('changes-note');
s.changes.forEach(function(c){var tr=el('tr');tr.append(el('td',{},c.path),c.before===undefined?el('td',{'class':'none'},'absent'):el('td',{'class':'b'},c.before),c.after===undefined?el('td',{'class':'none'},'absent'):el('td',{'class':'a'},c.after));tb.append(tr)});
$('changes').hidden=!s.changes.length;$('changes-title').textContent=s.state!=null?'State (the first read)':'State changes ('+(s.changes.length+s.more)+')';
n.textContent=s.state!=null?'The whole state after this step is below; later steps show what changed.':s.noState?'The state was not read after this step.':s.changes.length?(s.more?s.more+' more changes not listed.':''):'Nothing in the state changed.';
$('call-box').hidden=!s.call;$('call').textContent=s.call?JSON.stringify(s.call,null,2):'';
$('answer-box').hidden=s.answer==null;$('answer').textContent=s.answer||'';
$('state-box').hidden=s.state==null;$('state-box').open=s.state!=null;$('state').textContent=s.state||'';}
function fit(im,w,h){im.style.width=im.naturalWidth*Math.max(1,Math.floor(Math.min(w/im.naturalWidth,h/im.naturalHeight)))+'px'}
function zoom(e){var z=$('zoom-img');z.onload=function(){fit(z,innerWidth*0.98-24,innerHeight*0.98-64)};z.src=e.target.src;$('zoom').showModal()}$('zoom-img').onclick=function(){$('zoom').close()};
$('prev').onclick=function(){show(cur-1)};$('next').onclick=function(){show(cur+1)};
document.addEventListener('keydown',function(e){if(e.target&&e.target.tagName==='INPUT'||$('zoom').open)return;if(e.key==='ArrowDown'||e.key==='ArrowRight'||e.key==='j'){show(cur+1);e.preventDefault()}else if(e.key==='ArrowUp'||e.key==='ArrowLeft'||e.key==='k'){show(cur-1);e.preventDefault()}else if(e.key==='Home')show(0);else if(e.key==='End')show(T.steps.length-1)});
var h=/^#(\\d+)$/.exec(location.hash);var bad=T.steps.findIndex(function(s){return !s.ok});show(h?Number(h[1])-1:bad>=0?bad:0);
})();
`;
