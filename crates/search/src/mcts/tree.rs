//! The search tree: an arena of nodes and their outgoing edges.
//!
//! Nodes hold statistics from the point of view of their own side to move;
//! a parent reads a child's value flipped. Each node's edges lie contiguous
//! in one edge arena, so a node is expanded with one `extend`. A child node
//! exists only once its edge has been selected.

use crate::evaluator::Wdl;
use shashki_rules::Move;

/// Index of a node in the arena.
pub type NodeId = u32;

/// Marks an edge whose child has not been created yet.
pub const NO_NODE: NodeId = u32::MAX;

/// Where a node is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeState {
    /// Known not to be terminal, not yet evaluated.
    Unexpanded,
    /// Selected as a leaf; its evaluation is awaited.
    Pending,
    /// Evaluated; its edges exist.
    Expanded,
    /// The game is over here (the arbiter said so); never expanded.
    Terminal,
}

/// Added to the distance of a win or loss that rests on the endgame
/// tablebases: their distance is a DTZ (plies to the next capture,
/// promotion or end of the game), not plies to the end, so such a proof is
/// `Win(TABLEBASE_PLIES + plies to the tables + DTZ there)`. It ranks
/// behind every game end the tree proves itself (a real win is taken
/// first, a real loss avoided longest), and among tablebase wins the one
/// that converts soonest comes first, so "shortest win first" still makes
/// progress. [`Proof::tablebase_plies`] tells them apart for reports.
pub const TABLEBASE_PLIES: u32 = 1 << 20;

/// A game-theoretic value proven by the search (MCTS-solver), from the
/// node's side to move: the game ends in a win, a loss or a draw under best
/// play, with the number of plies to the end for wins and losses (the
/// winner takes the shortest line, the loser the longest); from
/// [`TABLEBASE_PLIES`] on, a tablebase result instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Proof {
    /// Not proven.
    #[default]
    Unknown,
    /// The side to move wins in this many plies.
    Win(u32),
    /// The side to move loses in this many plies.
    Loss(u32),
    /// A draw (by a draw rule or by best play).
    Draw,
}

impl Proof {
    /// The exact W/D/L of a proven value.
    pub fn wdl(self) -> Option<Wdl> {
        match self {
            Proof::Unknown => None,
            Proof::Win(_) => Some(Wdl::WIN),
            Proof::Loss(_) => Some(Wdl::LOSS),
            Proof::Draw => Some(Wdl::DRAW),
        }
    }

    /// True unless unknown.
    pub fn is_proven(self) -> bool {
        self != Proof::Unknown
    }

    /// A tablebase result: a win or loss in `dtz` plies to the next
    /// capture, promotion or end of the game (see [`TABLEBASE_PLIES`]).
    pub fn tablebase(win: bool, dtz: u32) -> Proof {
        let plies = TABLEBASE_PLIES.saturating_add(dtz);
        if win {
            Proof::Win(plies)
        } else {
            Proof::Loss(plies)
        }
    }

    /// For a win or loss resting on the tablebases: the plies along the
    /// proven line until it enters the tables, plus the DTZ there.
    pub fn tablebase_plies(self) -> Option<u32> {
        match self {
            Proof::Win(n) | Proof::Loss(n) if n >= TABLEBASE_PLIES => Some(n - TABLEBASE_PLIES),
            _ => None,
        }
    }

    /// The proof of a terminal position from the arbiter's verdict.
    fn of_terminal(wdl: Wdl) -> Proof {
        if wdl.win >= 1.0 {
            Proof::Win(0)
        } else if wdl.loss >= 1.0 {
            Proof::Loss(0)
        } else {
            Proof::Draw
        }
    }
}

/// One position in the tree.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    first_edge: u32,
    num_edges: u32,
    visits: u32,
    in_flight: u32,
    state: NodeState,
    /// The evaluator's (or the arbiter's) own verdict on this position.
    eval: Wdl,
    /// Sums of backed-up win, draw and loss probabilities.
    sum: [f64; 3],
    /// The value proven by the solver, if any.
    proof: Proof,
    /// Expanded without an evaluation of its own: a forced move (one legal
    /// move) passed through to its child, or a choice of captures with
    /// `capture_leaves`. Its `eval` is then the first value backed up
    /// through it, and its visits are its children's.
    passed: bool,
}

impl Node {
    fn new() -> Node {
        Node {
            first_edge: 0,
            num_edges: 0,
            visits: 0,
            in_flight: 0,
            state: NodeState::Unexpanded,
            eval: Wdl::default(),
            sum: [0.0; 3],
            proof: Proof::Unknown,
            passed: false,
        }
    }

    /// True for a forced move passed through without an evaluation of its
    /// own (see [`Tree::pass_through`]).
    #[inline]
    pub fn is_passed_through(&self) -> bool {
        self.passed
    }

    /// Completed visits (evaluations backed up through this node).
    #[inline]
    pub fn visits(&self) -> u32 {
        self.visits
    }

    /// Descents through this node still awaiting their evaluation.
    #[inline]
    pub fn in_flight(&self) -> u32 {
        self.in_flight
    }

    /// The node's state.
    #[inline]
    pub fn state(&self) -> NodeState {
        self.state
    }

    /// Number of edges (legal moves); 0 unless expanded.
    #[inline]
    pub fn num_edges(&self) -> usize {
        self.num_edges as usize
    }

    /// The raw evaluation (network or arbiter) of this position.
    #[inline]
    pub fn eval(&self) -> Wdl {
        self.eval
    }

    /// The value proven by the solver (terminal positions included).
    #[inline]
    pub fn proof(&self) -> Proof {
        self.proof
    }

    /// Mean backed-up W/D/L from this node's side to move (the raw
    /// evaluation before any visit; the exact value once proven).
    pub fn wdl(&self) -> Wdl {
        if let Some(exact) = self.proof.wdl() {
            return exact;
        }
        if self.visits == 0 {
            return self.eval;
        }
        let n = f64::from(self.visits);
        Wdl {
            win: (self.sum[0] / n) as f32,
            draw: (self.sum[1] / n) as f32,
            loss: (self.sum[2] / n) as f32,
        }
    }

    /// Mean value (win minus loss) from this node's side to move (exact
    /// once proven).
    #[inline]
    pub fn value(&self) -> f32 {
        if let Some(exact) = self.proof.wdl() {
            return exact.value();
        }
        if self.visits == 0 {
            return self.eval.value();
        }
        ((self.sum[0] - self.sum[2]) / f64::from(self.visits)) as f32
    }

    /// Value seen from the parent (flipped), with each in-flight descent
    /// counted as `virtual_loss` lost visits for the parent's mover; the
    /// exact value once proven.
    #[inline]
    pub fn q_from_parent(&self, virtual_loss: f32) -> f32 {
        if let Some(exact) = self.proof.wdl() {
            return -exact.value();
        }
        let vl = virtual_loss * self.in_flight as f32;
        let n = self.visits as f32 + vl;
        if n <= 0.0 {
            return -self.eval.value();
        }
        (((self.sum[2] - self.sum[0]) as f32) - vl) / n
    }

    /// Visits plus in-flight descents (what selection counts).
    #[inline]
    pub fn visits_with_in_flight(&self) -> u32 {
        self.visits + self.in_flight
    }
}

/// One legal move out of a node.
#[derive(Clone, Copy, Debug)]
pub struct Edge {
    mv: Move,
    prior: f32,
    child: NodeId,
}

impl Edge {
    /// The move.
    #[inline]
    pub fn mv(&self) -> &Move {
        &self.mv
    }

    /// The prior probability (with root noise, if any was added).
    #[inline]
    pub fn prior(&self) -> f32 {
        self.prior
    }

    /// The child node, if it was ever selected.
    #[inline]
    pub fn child(&self) -> Option<NodeId> {
        (self.child != NO_NODE).then_some(self.child)
    }
}

/// The arena. The root is always node 0.
#[derive(Clone, Debug)]
pub struct Tree {
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    /// Buffers kept for [`Tree::reroot`] so re-rooting does not allocate.
    spare_nodes: Vec<Node>,
    spare_edges: Vec<Edge>,
}

impl Default for Tree {
    fn default() -> Self {
        Tree::new()
    }
}

impl Tree {
    /// The root id.
    pub const ROOT: NodeId = 0;

    /// A tree holding only an unexpanded root.
    pub fn new() -> Tree {
        Tree {
            nodes: vec![Node::new()],
            edges: Vec::new(),
            spare_nodes: Vec::new(),
            spare_edges: Vec::new(),
        }
    }

    /// Drops everything but a fresh unexpanded root (keeps the capacity).
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.edges.clear();
        self.nodes.push(Node::new());
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Always false: the root exists.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// A node.
    #[inline]
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    /// The edges of a node (empty unless expanded).
    #[inline]
    pub fn edges(&self, id: NodeId) -> &[Edge] {
        let node = &self.nodes[id as usize];
        let first = node.first_edge as usize;
        &self.edges[first..first + node.num_edges as usize]
    }

    /// Index (in the edge arena) of the `i`-th edge of `id`.
    #[inline]
    pub fn edge_index(&self, id: NodeId, i: usize) -> usize {
        self.nodes[id as usize].first_edge as usize + i
    }

    /// The child behind the `i`-th edge of `id`, created (unexpanded) if new.
    /// Returns the child and whether it was just created.
    pub fn child_or_insert(&mut self, id: NodeId, i: usize) -> (NodeId, bool) {
        let e = self.edge_index(id, i);
        let child = self.edges[e].child;
        if child != NO_NODE {
            return (child, false);
        }
        let child = self.nodes.len() as NodeId;
        self.nodes.push(Node::new());
        self.edges[e].child = child;
        (child, true)
    }

    /// Marks a node terminal with the arbiter's verdict (side to move's view).
    pub fn set_terminal(&mut self, id: NodeId, wdl: Wdl) {
        let node = &mut self.nodes[id as usize];
        node.state = NodeState::Terminal;
        node.eval = wdl;
        node.proof = Proof::of_terminal(wdl);
    }

    /// Sets a node's proven value from outside the game rules (an endgame
    /// table): the node then counts as solved, like a terminal one.
    pub fn set_proof(&mut self, id: NodeId, proof: Proof) {
        self.nodes[id as usize].proof = proof;
    }

    /// The proof of an expanded node from its children's: a child lost for
    /// its mover wins (shortest first); all children proven and won for
    /// their movers loses (longest); all proven with a draw among them draws.
    fn proof_from_children(&self, id: NodeId) -> Proof {
        let node = &self.nodes[id as usize];
        if node.state != NodeState::Expanded {
            return node.proof;
        }
        let mut all_proven = true;
        let mut any_draw = false;
        let mut shortest_win: Option<u32> = None;
        let mut longest_loss = 0;
        for edge in self.edges(id) {
            let child = edge.child().map_or(Proof::Unknown, |c| self.node(c).proof);
            match child {
                Proof::Unknown => all_proven = false,
                Proof::Loss(n) => {
                    shortest_win = Some(shortest_win.map_or(n + 1, |w| w.min(n + 1)));
                }
                Proof::Draw => any_draw = true,
                Proof::Win(n) => longest_loss = longest_loss.max(n + 1),
            }
        }
        match shortest_win {
            Some(plies) => Proof::Win(plies),
            None if !all_proven => Proof::Unknown,
            None if any_draw => Proof::Draw,
            None => Proof::Loss(longest_loss),
        }
    }

    /// Propagates proofs up `path` (root first) after its last node was
    /// proven: each ancestor is re-judged from its children, stopping at the
    /// first whose proof does not change.
    pub fn propagate_proofs(&mut self, path: &[NodeId]) {
        for &id in path.iter().rev().skip(1) {
            let proof = self.proof_from_children(id);
            if proof == self.nodes[id as usize].proof {
                break;
            }
            self.nodes[id as usize].proof = proof;
        }
    }

    /// Marks a node as awaiting its evaluation.
    pub fn set_pending(&mut self, id: NodeId) {
        self.nodes[id as usize].state = NodeState::Pending;
    }

    /// Returns a pending node to unexpanded (its evaluation was abandoned).
    pub fn unset_pending(&mut self, id: NodeId) {
        let node = &mut self.nodes[id as usize];
        if node.state == NodeState::Pending {
            node.state = NodeState::Unexpanded;
        }
    }

    /// Expands a node: one edge per move with its prior, and the evaluation.
    pub fn expand(&mut self, id: NodeId, moves: &[Move], priors: &[f32], wdl: Wdl) {
        debug_assert_eq!(moves.len(), priors.len());
        self.attach_edges(id, moves.iter().copied().zip(priors.iter().copied()), wdl);
    }

    /// Expands a node without evaluating it: one edge per move with equal
    /// priors, and `estimate` as its evaluation until the first value is
    /// backed up through it (which then replaces it). The search descends
    /// on to a child, so the position costs no network call of its own (a
    /// forced move; with `capture_leaves`, a choice of captures).
    pub fn pass_through(&mut self, id: NodeId, moves: &[Move], estimate: Wdl) {
        let prior = 1.0 / moves.len().max(1) as f32;
        self.attach_edges(id, moves.iter().map(|&mv| (mv, prior)), estimate);
        self.nodes[id as usize].passed = true;
    }

    /// Gives node `id` one unexpanded edge per `(move, prior)` and `eval`
    /// as its evaluation: the node is expanded.
    fn attach_edges(&mut self, id: NodeId, edges: impl Iterator<Item = (Move, f32)>, eval: Wdl) {
        let first = self.edges.len() as u32;
        self.edges.extend(edges.map(|(mv, prior)| Edge {
            mv,
            prior,
            child: NO_NODE,
        }));
        let num_edges = self.edges.len() as u32 - first;
        let node = &mut self.nodes[id as usize];
        node.first_edge = first;
        node.num_edges = num_edges;
        node.state = NodeState::Expanded;
        node.eval = eval;
    }

    /// Overwrites the prior of the `i`-th edge of `id` (root noise).
    pub fn set_prior(&mut self, id: NodeId, i: usize, prior: f32) {
        let e = self.edge_index(id, i);
        self.edges[e].prior = prior;
    }

    /// Charges one in-flight descent to every node of `path`.
    pub fn add_in_flight(&mut self, path: &[NodeId]) {
        for &id in path {
            self.nodes[id as usize].in_flight += 1;
        }
    }

    /// Removes one in-flight descent from every node of `path`.
    pub fn remove_in_flight(&mut self, path: &[NodeId]) {
        for &id in path {
            let node = &mut self.nodes[id as usize];
            debug_assert!(node.in_flight > 0);
            node.in_flight = node.in_flight.saturating_sub(1);
        }
    }

    /// Backs up a leaf value along `path` (root first, leaf last): `wdl` is
    /// from the leaf's side to move and flips at every ply. With `in_flight`
    /// the path's virtual loss is removed at the same time.
    pub fn backup(&mut self, path: &[NodeId], wdl: Wdl, in_flight: bool) {
        let mut wdl = wdl;
        for &id in path.iter().rev() {
            let node = &mut self.nodes[id as usize];
            if node.passed && node.visits == 0 {
                // A forced move's value is its only child's.
                node.eval = wdl;
            }
            node.visits += 1;
            node.sum[0] += f64::from(wdl.win);
            node.sum[1] += f64::from(wdl.draw);
            node.sum[2] += f64::from(wdl.loss);
            if in_flight {
                debug_assert!(node.in_flight > 0);
                node.in_flight = node.in_flight.saturating_sub(1);
            }
            wdl = wdl.flipped();
        }
    }

    /// Makes the child behind the root's `i`-th edge the new root, keeping
    /// its subtree and dropping the rest (the arena is compacted). With no
    /// child there, the tree restarts from a fresh root.
    pub fn reroot(&mut self, i: usize) {
        let Some(old_root) = self.edges(Tree::ROOT).get(i).and_then(Edge::child) else {
            self.clear();
            return;
        };
        let mut nodes = std::mem::take(&mut self.spare_nodes);
        let mut edges = std::mem::take(&mut self.spare_edges);
        nodes.clear();
        edges.clear();
        // Breadth-first copy; `nodes` doubles as the queue. A copied node
        // still points at its old edges until its turn comes.
        nodes.push(self.nodes[old_root as usize]);
        let mut next = 0;
        while next < nodes.len() {
            let node = nodes[next];
            let first = edges.len() as u32;
            let old_first = node.first_edge as usize;
            for old in &self.edges[old_first..old_first + node.num_edges as usize] {
                let mut edge = *old;
                if edge.child != NO_NODE {
                    let copy = nodes.len() as NodeId;
                    nodes.push(self.nodes[edge.child as usize]);
                    edge.child = copy;
                }
                edges.push(edge);
            }
            let copied = &mut nodes[next];
            copied.first_edge = first;
            copied.in_flight = 0;
            if copied.state == NodeState::Pending {
                copied.state = NodeState::Unexpanded;
            }
            next += 1;
        }
        self.spare_nodes = std::mem::replace(&mut self.nodes, nodes);
        self.spare_edges = std::mem::replace(&mut self.edges, edges);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shashki_rules::Position;

    fn start_moves() -> Vec<Move> {
        Position::startpos().legal_moves().iter().copied().collect()
    }

    #[test]
    fn backup_flips_per_ply_and_counts() {
        let moves = start_moves();
        let priors = vec![1.0 / moves.len() as f32; moves.len()];
        let mut tree = Tree::new();
        tree.expand(Tree::ROOT, &moves, &priors, Wdl::DRAW);
        tree.backup(&[Tree::ROOT], Wdl::DRAW, false);
        let (child, created) = tree.child_or_insert(Tree::ROOT, 2);
        assert!(created);
        assert_eq!(tree.child_or_insert(Tree::ROOT, 2), (child, false));
        let path = [Tree::ROOT, child];
        tree.add_in_flight(&path);
        assert_eq!(tree.node(child).in_flight(), 1);
        // In flight: the parent sees a virtual loss.
        assert_eq!(tree.node(child).q_from_parent(1.0), -1.0);
        tree.backup(&path, Wdl::LOSS, true);
        assert_eq!(tree.node(child).in_flight(), 0);
        assert_eq!(tree.node(child).visits(), 1);
        assert_eq!(tree.node(child).value(), -1.0);
        // The child's loss is the parent's win.
        assert_eq!(tree.node(child).q_from_parent(1.0), 1.0);
        assert_eq!(tree.node(Tree::ROOT).visits(), 2);
        assert_eq!(
            tree.node(Tree::ROOT).wdl(),
            Wdl {
                win: 0.5,
                draw: 0.5,
                loss: 0.0
            }
        );
    }

    #[test]
    fn reroot_keeps_the_subtree() {
        let moves = start_moves();
        let priors = vec![1.0 / moves.len() as f32; moves.len()];
        let mut tree = Tree::new();
        tree.expand(Tree::ROOT, &moves, &priors, Wdl::DRAW);
        let (a, _) = tree.child_or_insert(Tree::ROOT, 0);
        let (b, _) = tree.child_or_insert(Tree::ROOT, 1);
        let replies = Position::startpos().make_move(&moves[1]).legal_moves();
        let replies: Vec<Move> = replies.iter().copied().collect();
        tree.expand(b, &replies, &vec![0.5; replies.len()], Wdl::WIN);
        let (c, _) = tree.child_or_insert(b, 3);
        tree.backup(&[Tree::ROOT, a], Wdl::WIN, false);
        tree.backup(&[Tree::ROOT, b], Wdl::WIN, false);
        tree.backup(&[Tree::ROOT, b, c], Wdl::LOSS, false);
        tree.reroot(1);
        assert_eq!(tree.len(), 2);
        let root = tree.node(Tree::ROOT);
        assert_eq!(root.visits(), 2);
        assert_eq!(root.state(), NodeState::Expanded);
        assert_eq!(tree.edges(Tree::ROOT).len(), replies.len());
        assert_eq!(tree.edges(Tree::ROOT)[3].mv(), &replies[3]);
        let c2 = tree.edges(Tree::ROOT)[3].child().unwrap();
        assert_eq!(tree.node(c2).visits(), 1);
        assert_eq!(tree.node(c2).value(), -1.0);
        // No child behind the edge: a fresh root.
        tree.reroot(0);
        assert_eq!(tree.len(), 1);
        assert_eq!(tree.node(Tree::ROOT).state(), NodeState::Unexpanded);
    }
}
