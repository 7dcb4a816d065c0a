// The SVG board: squares, coordinates, pieces, highlights, and input by
// clicking or dragging. It knows nothing of the server: it draws a view
// ({board, squares, ...}) and reports the squares the user picks.

const NS = 'http://www.w3.org/2000/svg';
const SIZE = 100;
const FILES = 'abcdefgh';

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// A king's crown, drawn around (0, 0) in a 100-unit square.
const CROWN = 'M -20 8 L -24 -12 L -11 -2 L 0 -18 L 11 -2 L 24 -12 L 20 8 Z';

export class Board {
  constructor(svg, onPick, onDragStart) {
    this.svg = svg;
    this.onPick = onPick;            // (square) => void
    this.onDragStart = onDragStart;  // (square) => bool: may this piece be dragged?
    this.flipped = false;
    this.drag = null;
    this.build();
  }

  // The top-left corner of a square in board units.
  corner(name) {
    const file = FILES.indexOf(name[0]);
    const rank = Number(name.slice(1)) - 1;
    return this.flipped
      ? [(7 - file) * SIZE, rank * SIZE]
      : [file * SIZE, (7 - rank) * SIZE];
  }

  build() {
    const svg = this.svg;
    svg.textContent = '';
    const defs = el('defs', {}, svg);
    const grad = (id, stops) => {
      const g = el('radialGradient', { id, cx: '40%', cy: '35%', r: '70%' }, defs);
      stops.forEach(([off, color]) => el('stop', { offset: off, 'stop-color': color }, g));
    };
    grad('man-white', [['0%', '#ffffff'], ['70%', '#efe8da'], ['100%', '#cfc4ae']]);
    grad('man-black', [['0%', '#6a6a6a'], ['60%', '#2e2e2e'], ['100%', '#151515']]);
    const shadow = el('filter', { id: 'shadow', x: '-20%', y: '-20%', width: '140%', height: '140%' }, defs);
    el('feDropShadow', { dx: '0', dy: '3', stdDeviation: '2.5', 'flood-opacity': '0.45' }, shadow);
    this.layers = {
      squares: el('g', { class: 'squares' }, svg),
      marks: el('g', { class: 'marks' }, svg),
      coords: el('g', { class: 'coords' }, svg),
      pieces: el('g', { class: 'pieces' }, svg),
      targets: el('g', { class: 'targets' }, svg),
      drag: el('g', { class: 'drag' }, svg),
    };
    svg.addEventListener('pointerdown', (e) => this.pointerDown(e));
    svg.addEventListener('pointermove', (e) => this.pointerMove(e));
    svg.addEventListener('pointerup', (e) => this.pointerUp(e));
    svg.addEventListener('pointercancel', () => this.endDrag());
  }

  // Draws `view` ({board, squares}) with `marks`: {last: [squares],
  // selected, targets: [squares], captured: [squares]}.
  render(view, marks) {
    this.view = view;
    const { squares, marks: markLayer, coords, pieces, targets } = this.layers;
    [squares, markLayer, coords, pieces, targets].forEach((g) => { g.textContent = ''; });
    for (let rank = 0; rank < 8; rank++) {
      for (let file = 0; file < 8; file++) {
        const name = FILES[file] + (rank + 1);
        const dark = (file + rank) % 2 === 0;
        const [x, y] = this.corner(name);
        el('rect', { x, y, width: SIZE, height: SIZE, class: dark ? 'sq dark' : 'sq light' }, squares);
      }
    }
    // Coordinates inside the edge squares, as lidraughts draws them.
    for (let i = 0; i < 8; i++) {
      const file = FILES[i];
      const [fx] = this.corner(file + '1');
      const bottom = this.flipped ? 8 : 1;
      const fy = this.corner(file + bottom)[1];
      // Each label takes the colour of the other kind of square.
      const shade = (name) => ((FILES.indexOf(name[0]) + Number(name.slice(1)) - 1) % 2 === 0 ? 'on-dark' : 'on-light');
      el('text', { x: fx + SIZE - 8, y: fy + SIZE - 8, class: `coord file ${shade(file + bottom)}`, 'text-anchor': 'end' }, coords).textContent = file;
      const rankName = String(i + 1);
      const left = this.flipped ? 'h' : 'a';
      const [rx, ry] = this.corner(left + rankName);
      el('text', { x: rx + 7, y: ry + 22, class: `coord rank ${shade(left + rankName)}` }, coords).textContent = rankName;
    }
    (marks.last || []).forEach((sq) => this.mark(sq, 'last'));
    if (marks.selected) this.mark(marks.selected, 'selected');
    view.squares.forEach((name, i) => {
      const piece = view.board[i] || '';
      const [x, y] = this.corner(name);
      const cell = el('g', { class: 'cell', 'data-square': name, 'data-piece': piece }, pieces);
      el('rect', { x, y, width: SIZE, height: SIZE, class: 'hit' }, cell);
      if (piece) this.drawPiece(cell, piece, x + SIZE / 2, y + SIZE / 2, (marks.captured || []).includes(name));
    });
    (marks.targets || []).forEach((sq) => {
      const [x, y] = this.corner(sq);
      const occupied = view.board[view.squares.indexOf(sq)];
      el('circle', {
        cx: x + SIZE / 2, cy: y + SIZE / 2, r: occupied ? 44 : 15,
        class: occupied ? 'target ring' : 'target', 'data-target': sq,
      }, targets);
    });
  }

  mark(sq, cls) {
    const [x, y] = this.corner(sq);
    el('rect', { x, y, width: SIZE, height: SIZE, class: 'mark ' + cls }, this.layers.marks);
  }

  drawPiece(parent, piece, cx, cy, ghost = false) {
    const white = piece.toLowerCase() === 'w';
    const g = el('g', { class: 'piece ' + (white ? 'white' : 'black') + (ghost ? ' ghost' : ''), transform: `translate(${cx} ${cy})` }, parent);
    el('circle', { r: 41, fill: `url(#man-${white ? 'white' : 'black'})`, class: 'body', filter: 'url(#shadow)' }, g);
    el('circle', { r: 31, class: 'groove' }, g);
    el('circle', { r: 20, class: 'groove inner' }, g);
    if (piece === 'W' || piece === 'B') {
      el('path', { d: CROWN, class: 'crown' }, g);
    }
    return g;
  }

  squareAt(event) {
    const hit = document.elementFromPoint(event.clientX, event.clientY);
    const cell = hit && hit.closest('[data-square]');
    return cell ? cell.getAttribute('data-square') : null;
  }

  toBoard(event) {
    const r = this.svg.getBoundingClientRect();
    return [(event.clientX - r.left) * 800 / r.width, (event.clientY - r.top) * 800 / r.height];
  }

  pointerDown(event) {
    const sq = this.squareAt(event);
    if (!sq) return;
    event.preventDefault();
    const draggable = this.onDragStart(sq);
    this.onPick(sq);
    if (draggable && this.view) {
      const piece = this.view.board[this.view.squares.indexOf(sq)];
      this.drag = { from: sq, piece, node: null, moved: false };
      this.svg.setPointerCapture(event.pointerId);
    }
  }

  pointerMove(event) {
    const d = this.drag;
    if (!d) return;
    const [x, y] = this.toBoard(event);
    if (!d.node) {
      d.node = this.drawPiece(this.layers.drag, d.piece, x, y);
      d.node.classList.add('dragging');
    }
    d.moved = true;
    d.node.setAttribute('transform', `translate(${x} ${y})`);
  }

  pointerUp(event) {
    const d = this.drag;
    this.endDrag();
    if (!d || !d.moved) return;
    const sq = this.squareAt(event);
    if (sq && sq !== d.from) this.onPick(sq);
  }

  endDrag() {
    if (this.drag && this.drag.node) this.drag.node.remove();
    this.drag = null;
  }
}
