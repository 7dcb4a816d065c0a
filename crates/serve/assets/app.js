// The page: one game on the board (start FEN + moves + a cursor), the
// server's view of the position at the cursor, and the panels around it.
import { Board } from '/assets/board.js';

const $ = (id) => document.getElementById(id);

const S = {
  start: '',          // PDN FEN of the start ('' = the standard start)
  moves: [],          // long notation, from the start
  cursor: 0,          // half-moves shown
  view: null,         // the server's PositionView at the cursor
  clicks: [],         // squares picked towards the next move
  thinking: false,    // an engine reply is on its way
  replyAbort: null,   // aborts that request
  analysis: null,     // the EventSource of the live analysis
  game: null,         // the PDN game shown, if any
  info: null,         // GET /api/info
  generation: 0,      // bumps on every position change, to drop stale answers
};

const board = new Board($('board'), pick, (sq) => ownPiece(sq));

// ---------------------------------------------------------------- server

async function api(path, body, options = {}) {
  const init = body === undefined ? { ...options } : {
    method: 'POST',
    headers: { 'Content-Type': typeof body === 'string' ? 'text/plain' : 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...options,
  };
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({ error: `${response.status} ${response.statusText}` }));
  if (!response.ok) throw new Error(data.error || `${response.status}`);
  return data;
}

function showError(message) {
  const box = $('error');
  box.textContent = message || '';
  box.hidden = !message;
}

// --------------------------------------------------------------- the game

function gameRequest(plies = S.cursor) {
  return { fen: S.start || null, moves: S.moves.slice(0, plies) };
}

async function refresh() {
  const generation = ++S.generation;
  S.clicks = [];
  stopAnalysis();
  try {
    const view = await api('/api/position', gameRequest());
    if (generation !== S.generation) return;
    S.view = view;
    showError('');
  } catch (e) {
    showError(e.message);
    return;
  }
  draw();
  if ($('analyse-toggle').checked) startAnalysis();
  maybeEngineMove();
}

function setGame(start, moves, cursor, game = null) {
  cancelReply();
  S.start = start;
  S.moves = moves;
  S.cursor = cursor;
  S.game = game;
  return refresh();
}

function goTo(ply) {
  ply = Math.max(0, Math.min(S.moves.length, ply));
  if (ply === S.cursor) return;
  cancelReply();
  S.cursor = ply;
  refresh();
}

function play(text) {
  // A move away from the end of the line replaces what followed.
  S.moves = S.moves.slice(0, S.cursor).concat([text]);
  S.cursor = S.moves.length;
  refresh();
}

function engineSide() { return $('engine-side').value; }

function ownPiece(sq) {
  if (!S.view || S.thinking || S.view.outcome) return false;
  if (engineSide() === S.view.side_to_move) return false;
  return S.view.legal.some((m) => m.path[0] === sq);
}

// Squares picked select the move: the first is the piece, the others must
// all lie on the move's path. A square that ends exactly one candidate plays
// it; several captures ending on the same square wait for a square along
// the way that tells them apart.
function pick(sq) {
  if (!S.view || S.thinking || S.view.outcome || engineSide() === S.view.side_to_move) return;
  const legal = S.view.legal;
  if (S.clicks.length === 0 || (S.clicks.length === 1 && sq === S.clicks[0])) {
    S.clicks = S.clicks.length === 0 && legal.some((m) => m.path[0] === sq) ? [sq] : [];
    return draw();
  }
  const clicks = S.clicks.concat([sq]);
  const candidates = legal.filter((m) => m.path[0] === clicks[0]
    && clicks.slice(1).every((c) => m.path.slice(1).includes(c)));
  if (candidates.length === 0) {
    S.clicks = legal.some((m) => m.path[0] === sq) ? [sq] : [];
    return draw();
  }
  const ending = candidates.filter((m) => m.path[m.path.length - 1] === sq);
  if (ending.length === 1) return play(ending[0].text);
  if (candidates.length === 1) return play(candidates[0].text);
  S.clicks = clicks;
  draw();
}

function targets() {
  if (!S.view || S.clicks.length === 0) return [];
  const [from, ...rest] = S.clicks;
  const candidates = S.view.legal.filter((m) => m.path[0] === from
    && rest.every((c) => m.path.slice(1).includes(c)));
  const out = new Set();
  for (const m of candidates) {
    if (rest.length === 0) out.add(m.path[m.path.length - 1]);
    else m.path.slice(1).filter((p) => !rest.includes(p)).forEach((p) => out.add(p));
  }
  return [...out];
}

// ------------------------------------------------------------- the engine

function cancelReply() {
  if (S.replyAbort) S.replyAbort.abort();
  S.replyAbort = null;
  S.thinking = false;
}

function maybeEngineMove(force = false) {
  const v = S.view;
  if (!v || v.outcome || S.thinking) return;
  if (!force && (engineSide() !== v.side_to_move || S.cursor !== S.moves.length)) return;
  requestEngineMove();
}

async function requestEngineMove() {
  const generation = S.generation;
  const abort = new AbortController();
  S.replyAbort = abort;
  S.thinking = true;
  drawStatus();
  try {
    const reply = await api('/api/engine-move', {
      ...gameRequest(),
      engine: $('opponent').value || null,
      movetime_ms: Number($('movetime').value),
    }, { signal: abort.signal });
    if (generation !== S.generation) return;
    S.thinking = false;
    S.replyAbort = null;
    play(reply.move.text);
  } catch (e) {
    if (abort.signal.aborted) return;
    S.thinking = false;
    S.replyAbort = null;
    showError(e.message);
    drawStatus();
  }
}

// --------------------------------------------------------------- analysis

function stopAnalysis() {
  if (S.analysis) S.analysis.close();
  S.analysis = null;
  $('ceval-stats').textContent = '';
}

function startAnalysis() {
  stopAnalysis();
  const v = S.view;
  if (!v || v.outcome) { drawCeval(null); return; }
  const params = new URLSearchParams();
  if (S.start) params.set('fen', S.start);
  params.set('moves', S.moves.slice(0, S.cursor).join(' '));
  params.set('engine', $('analysis-engine').value);
  const source = new EventSource('/api/analyse?' + params.toString());
  S.analysis = source;
  $('ceval-stats').textContent = 'starting…';
  source.addEventListener('info', (e) => drawCeval(JSON.parse(e.data), false));
  source.addEventListener('done', (e) => { drawCeval(JSON.parse(e.data), true); source.close(); });
  source.onerror = () => {
    // The server refused (every search slot taken) or went away: say so
    // once instead of letting EventSource retry forever.
    if (S.analysis === source) {
      source.close();
      S.analysis = null;
      $('ceval-stats').textContent = 'analysis unavailable (server busy or gone)';
    }
  };
}

function numberWithUnit(n) {
  if (n >= 1e9) return (n / 1e9).toFixed(1) + 'G';
  if (n >= 1e6) return (n / 1e6).toFixed(1) + 'M';
  if (n >= 1e3) return (n / 1e3).toFixed(1) + 'k';
  return String(n);
}

function drawCeval(info, done) {
  const fill = $('eval-fill');
  if (!info) {
    $('ceval-score').textContent = '–';
    $('ceval-pv').textContent = '';
    fill.style.height = '50%';
    return;
  }
  $('ceval-score').textContent = info.score.display;
  $('ceval-stats').textContent = `depth ${info.depth} · ${numberWithUnit(info.nodes)} nodes · ${numberWithUnit(info.nps)}/s · ${(info.time_ms / 1000).toFixed(1)} s${done ? ' · done' : ''}`;
  const pv = $('ceval-pv');
  pv.textContent = '';
  info.pv.slice(0, 16).forEach((mv, i) => {
    const span = document.createElement('span');
    span.className = 'pv-move';
    span.textContent = mv;
    // Clicking a move of the line plays the line up to it.
    span.addEventListener('click', () => {
      S.moves = S.moves.slice(0, S.cursor).concat(info.pv.slice(0, i + 1));
      S.cursor = S.moves.length;
      refresh();
    });
    pv.appendChild(span);
  });
  const white = (1 + info.score.white) / 2;
  fill.style.height = `${(board.flipped ? 1 - white : white) * 100}%`;
}

// ---------------------------------------------------------------- drawing

function lastMoveSquares() {
  if (S.cursor === 0 || !S.view) return [];
  const text = S.view.moves[S.cursor - 1];
  return text ? text.split(/[-:]/) : [];
}

function draw() {
  if (!S.view) return;
  const selected = S.clicks[0] || null;
  board.render(S.view, {
    last: lastMoveSquares(),
    selected,
    targets: targets(),
  });
  drawStatus();
  drawFacts();
  drawMoves();
  $('fen-out').value = S.view.fen;
}

function drawStatus() {
  const v = S.view;
  if (!v) return;
  let text;
  if (v.outcome) text = v.outcome.text;
  else if (S.thinking) text = `${$('opponent').value || 'The engine'} is thinking…`;
  else {
    const side = v.side_to_move === 'white' ? 'White' : 'Black';
    const who = engineSide() === v.side_to_move ? 'engine' : 'you';
    text = `${side} to move (${engineSide() === 'none' ? 'free board' : who})`;
  }
  if (S.game) text = `Game ${S.game.number}: ${S.game.white} – ${S.game.black}, ${S.game.result}. ` + text;
  const status = $('status');
  status.textContent = text;
  status.classList.toggle('over', !!v.outcome);
  status.dataset.thinking = S.thinking ? '1' : '0';
}

function drawFacts() {
  const v = S.view;
  const facts = $('facts');
  facts.textContent = '';
  const add = (cls, text) => {
    const div = document.createElement('div');
    div.className = cls;
    div.textContent = text;
    facts.appendChild(div);
  };
  if (v.tablebase) add('tb', v.tablebase.text);
  add('draw', v.draw.text);
}

function drawMoves() {
  const list = $('moves');
  list.textContent = '';
  // The side to move at the start follows from the side at the cursor.
  const blackFirst = !!S.view && ((S.cursor % 2 === 0) === (S.view.side_to_move === 'black'));
  const offset = blackFirst ? 1 : 0;
  const cell = (ply) => {
    const span = document.createElement('span');
    span.className = 'mv' + (ply + 1 === S.cursor ? ' current' : '') + (ply >= S.cursor ? ' ahead' : '');
    span.textContent = S.moves[ply];
    span.dataset.ply = String(ply + 1);
    span.addEventListener('click', () => goTo(ply + 1));
    return span;
  };
  const rows = Math.ceil((S.moves.length + offset) / 2);
  for (let r = 0; r < rows; r++) {
    const num = document.createElement('span');
    num.className = 'num';
    num.textContent = `${r + 1}.`;
    list.appendChild(num);
    for (let c = 0; c < 2; c++) {
      const ply = 2 * r + c - offset;
      if (ply < 0 || ply >= S.moves.length) {
        const empty = document.createElement('span');
        empty.className = 'mv empty';
        empty.textContent = ply < 0 ? '…' : '';
        list.appendChild(empty);
      } else list.appendChild(cell(ply));
    }
  }
  if (S.view && S.view.outcome && S.cursor === S.moves.length) {
    const end = document.createElement('div');
    end.className = 'result';
    end.textContent = `${S.view.outcome.result} · ${S.view.outcome.reason}`;
    list.appendChild(end);
  }
  const current = list.querySelector('.current');
  if (current) current.scrollIntoView({ block: 'nearest' });
}

// ------------------------------------------------------------------ games

function showGames(list) {
  $('pdn-source').textContent = `${list.source}: ${list.games.length} game(s)`;
  const table = $('game-list');
  table.textContent = '';
  const head = table.insertRow();
  ['#', 'White', 'Black', 'Result', 'Termination', 'Moves'].forEach((h) => {
    const th = document.createElement('th');
    th.textContent = h;
    head.appendChild(th);
  });
  for (const g of list.games) {
    const row = table.insertRow();
    row.dataset.game = String(g.number);
    if (g.error) {
      row.className = 'broken';
      row.insertCell().textContent = g.number;
      const c = row.insertCell();
      c.colSpan = 5;
      c.textContent = g.error;
      continue;
    }
    [g.number, g.white, g.black, g.result, g.termination, Math.ceil(g.moves.length / 2)]
      .forEach((text) => { row.insertCell().textContent = text; });
    row.addEventListener('click', () => {
      table.querySelectorAll('tr.active').forEach((r) => r.classList.remove('active'));
      row.classList.add('active');
      $('engine-side').value = 'none';
      setGame(g.fen, g.moves.slice(), 0, g);
    });
  }
}

async function loadPdn(text) {
  try {
    showGames(await api('/api/pdn', text));
    showError('');
  } catch (e) { showError(e.message); }
}

async function listServerFiles() {
  const files = await api('/api/pdn-files');
  const box = $('server-files');
  box.textContent = '';
  for (const f of files) {
    const b = document.createElement('button');
    b.className = 'link';
    b.textContent = f.name;
    b.addEventListener('click', async () => {
      try { showGames(await api(`/api/pdn-files/${f.index}`)); } catch (e) { showError(e.message); }
    });
    box.appendChild(b);
  }
}

// ------------------------------------------------------------------- runs

function chart(title, series, options = {}) {
  // series: [{name, points: [{step, value, ci95?}], cls, dots?}]
  const W = 520, H = 200, L = 52, R = 10, T = 22, B = 26;
  const all = series.flatMap((s) => s.points);
  const wrap = document.createElement('div');
  wrap.className = 'chart';
  if (all.length === 0) return wrap;
  const xs = all.map((p) => p.step);
  const ys = all.flatMap((p) => p.ci95 ? [p.value - p.ci95, p.value + p.ci95] : [p.value]);
  let [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  if (x1 === x0) x1 = x0 + 1;
  if (y1 === y0) { y1 += 1; y0 -= 1; }
  const X = (v) => L + (v - x0) / (x1 - x0) * (W - L - R);
  const Y = (v) => T + (1 - (v - y0) / (y1 - y0)) * (H - T - B);
  const NSs = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(NSs, 'svg');
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  const add = (name, attrs, text) => {
    const n = document.createElementNS(NSs, name);
    Object.entries(attrs).forEach(([k, v]) => n.setAttribute(k, v));
    if (text !== undefined) n.textContent = text;
    svg.appendChild(n);
    return n;
  };
  add('text', { x: L, y: 14, class: 'chart-title' }, title);
  for (let i = 0; i <= 4; i++) {
    const v = y0 + (y1 - y0) * i / 4;
    add('line', { x1: L, x2: W - R, y1: Y(v), y2: Y(v), class: 'grid' });
    add('text', { x: L - 6, y: Y(v) + 4, class: 'axis', 'text-anchor': 'end' }, Math.abs(v) >= 100 ? v.toFixed(0) : v.toPrecision(3));
  }
  add('text', { x: L, y: H - 6, class: 'axis' }, String(x0));
  add('text', { x: W - R, y: H - 6, class: 'axis', 'text-anchor': 'end' }, `${x1} ${options.xLabel || 'steps'}`);
  series.forEach((s, i) => {
    const pts = s.points;
    if (pts.length > 1 && !s.dotsOnly) {
      add('polyline', { points: pts.map((p) => `${X(p.step)},${Y(p.value)}`).join(' '), class: `line c${i}` });
    }
    for (const p of pts) {
      if (p.ci95) add('line', { x1: X(p.step), x2: X(p.step), y1: Y(p.value - p.ci95), y2: Y(p.value + p.ci95), class: `err c${i}` });
      if (s.dots || s.dotsOnly) add('circle', { cx: X(p.step), cy: Y(p.value), r: 3, class: `dot c${i}` }).appendChild(
        Object.assign(document.createElementNS(NSs, 'title'), { textContent: `${p.label || ''} ${p.value.toFixed(1)}` }));
    }
    add('text', { x: W - R - 4, y: T + 14 * (i + 1), class: `legend c${i}`, 'text-anchor': 'end' }, s.name);
  });
  wrap.appendChild(svg);
  return wrap;
}

async function showRun(name) {
  window.history.replaceState(null, '', `#runs/${encodeURIComponent(name)}`);
  const box = $('run-detail');
  box.textContent = 'Loading…';
  try {
    const d = await api(`/api/runs/${encodeURIComponent(name)}`);
    box.textContent = '';
    const h = document.createElement('h3');
    h.textContent = `${d.summary.name}: generation ${d.summary.generation}, ${d.summary.step} steps, ${d.summary.games} games`;
    box.appendChild(h);
    const elo = [];
    if (d.evaluator_elo.length) elo.push({ name: `evaluator (vs ${d.evaluator_anchor})`, points: d.evaluator_elo, dots: true });
    if (d.rated_elo.length) elo.push({ name: `rated (anchor ${d.rated_anchor})`, points: d.rated_elo, dots: true });
    if (d.gating_elo.length) elo.push({ name: 'gating (best net vs first)', points: d.gating_elo });
    box.appendChild(chart('Elo against training steps', elo));
    const losses = Object.entries(d.losses).map(([tag, points]) => ({ name: tag, points }));
    box.appendChild(chart('Loss', losses));
    box.appendChild(chart('Self-play games', [{ name: 'games', points: d.games }]));
    for (const w of d.warnings) {
      const p = document.createElement('div');
      p.className = 'muted';
      p.textContent = w;
      box.appendChild(p);
    }
  } catch (e) { box.textContent = e.message; }
}

async function listRuns() {
  const table = $('run-list');
  table.textContent = '';
  if (!S.info.runs) {
    $('runs-note').textContent = 'No runs yet: start the server with `shashki serve --runs runs` to follow training runs here.';
    return;
  }
  try {
    const runs = await api('/api/runs');
    $('runs-note').textContent = runs.length ? 'Click a run for its curves.' : 'No runs yet: training (`shashki train --run-dir runs/NAME`) writes them into the run folder.';
    const head = table.insertRow();
    ['Run', 'Gen.', 'Steps', 'Games', 'Best Elo'].forEach((t) => {
      const th = document.createElement('th'); th.textContent = t; head.appendChild(th);
    });
    for (const r of runs) {
      const row = table.insertRow();
      row.dataset.run = r.name;
      [r.name, r.generation, r.step, r.games, r.best_elo.toFixed(0)].forEach((t) => { row.insertCell().textContent = t; });
      row.addEventListener('click', () => showRun(r.name));
    }
  } catch (e) { $('runs-note').textContent = e.message; }
}

// ------------------------------------------------------------------ wiring

const TABS = ['play', 'games', 'runs'];

function showTab(name) {
  document.querySelectorAll('.tab').forEach((t) => t.classList.toggle('active', t.dataset.tab === name));
  TABS.forEach((p) => { $('panel-' + p).hidden = p !== name; });
  if (name === 'runs') listRuns();
  // The address names what is shown, so it can be shared or reloaded.
  const here = window.location.pathname + window.location.search;
  window.history.replaceState(null, '', name === 'play' ? here : `${here}#${name}`);
}

// Deep links: #games, #runs, and #runs/NAME for one run's curves.
function openFromHash() {
  const [tab, ...rest] = decodeURIComponent(window.location.hash.slice(1)).split('/');
  if (!TABS.includes(tab)) return;
  showTab(tab);
  if (tab === 'runs' && rest.length) showRun(rest.join('/'));
}

function wire() {
  document.querySelectorAll('.tab').forEach((t) => t.addEventListener('click', () => showTab(t.dataset.tab)));
  $('nav-first').onclick = () => goTo(0);
  $('nav-prev').onclick = () => goTo(S.cursor - 1);
  $('nav-next').onclick = () => goTo(S.cursor + 1);
  $('nav-last').onclick = () => goTo(S.moves.length);
  $('flip').onclick = () => { board.flipped = !board.flipped; $('eval-bar').classList.toggle('flipped', board.flipped); draw(); };
  $('new-game').onclick = () => { S.game = null; setGame('', [], 0); };
  $('undo').onclick = () => {
    cancelReply();
    // Take back the engine's reply too, so it is the user's turn again.
    let n = S.cursor;
    if (n > 0) n -= 1;
    if (n > 0 && engineSide() !== 'none' && S.view && S.view.side_to_move !== engineSide()) n -= 1;
    S.moves = S.moves.slice(0, n);
    S.cursor = n;
    refresh();
  };
  $('engine-go').onclick = () => maybeEngineMove(true);
  $('engine-side').onchange = () => { drawStatus(); maybeEngineMove(); };
  $('fen-set').onclick = () => { S.game = null; setGame($('fen-in').value.trim(), [], 0); };
  $('fen-copy').onclick = () => navigator.clipboard && navigator.clipboard.writeText($('fen-out').value);
  $('analyse-toggle').onchange = (e) => (e.target.checked ? startAnalysis() : (stopAnalysis(), drawCeval(null)));
  $('analysis-engine').onchange = () => { if ($('analyse-toggle').checked) startAnalysis(); };
  $('pdn-load').onclick = () => loadPdn($('pdn-text').value);
  $('pdn-file').onchange = async (e) => {
    const file = e.target.files[0];
    if (file) loadPdn(await file.text());
  };
  document.addEventListener('keydown', (e) => {
    if (e.target.matches('input, textarea, select')) return;
    const keys = { ArrowLeft: () => goTo(S.cursor - 1), ArrowRight: () => goTo(S.cursor + 1),
      Home: () => goTo(0), End: () => goTo(S.moves.length), f: () => $('flip').click() };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });
  window.addEventListener('beforeunload', () => { stopAnalysis(); cancelReply(); });
}

async function main() {
  // The token of the printed URL is now in a cookie: keep it out of the
  // address bar (and of screenshots and history).
  const url = new URL(window.location.href);
  if (url.searchParams.has('token')) {
    url.searchParams.delete('token');
    window.history.replaceState(null, '', url.pathname + url.search + url.hash);
  }
  wire();
  try {
    S.info = await api('/api/info');
  } catch (e) { showError(`cannot reach the server: ${e.message}`); return; }
  // The server offers the engines its owner named; a request can only
  // pick one of these names.
  const option = (name, description) => {
    const opt = document.createElement('option');
    opt.value = name; opt.textContent = name; opt.title = description;
    return opt;
  };
  const engines = S.info.engines;
  for (const [name, description] of engines) {
    $('analysis-engine').appendChild(option(name, description));
    $('opponent').appendChild(option(name, description));
  }
  for (const [name, description] of S.info.players || []) {
    $('opponent').appendChild(option(name, description));
  }
  if (engines.length) $('opponent').value = engines[0][0];
  $('server-line').textContent = `${engines.length ? engines[0][1] : 'no engine'}${S.info.tablebase ? ' · tablebases' : ''}`;
  listServerFiles().catch((e) => showError(e.message));
  await setGame('', [], 0);
  openFromHash();
  window.addEventListener('hashchange', openFromHash);
  document.body.dataset.ready = '1';
}

main();
