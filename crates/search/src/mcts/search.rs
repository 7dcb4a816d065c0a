//! The search loop: one resumable state machine for both algorithms.
//!
//! A search is driven either by [`Search::run`] (blocking, one evaluator) or
//! step by step, which lets one driver fill a single evaluator batch from
//! many games:
//!
//! ```text
//! search.begin(&mut rng)?;
//! while !search.done() {
//!     let leaves = search.select_leaves(k);          // up to k positions
//!     /* evaluate leaves[i].eval_request() into evals[i] */
//!     search.apply(&evals)?;
//! }
//! let result = search.finish(&mut rng)?;
//! search.advance(&result.best_move)?;                // keep the subtree
//! ```
//!
//! Each descent plays moves on the root [`Game`] and takes them back, so
//! the arbiter (official draw rules included) judges every new node; a
//! terminal node is scored by the arbiter and never expanded. With
//! endgame tablebases ([`Search::set_tablebases`]) a new node in them is
//! solved at once with its exact value under its draw counters, and a
//! root in them has every child solved when it is expanded, so the solver
//! proves it (see [`TABLEBASE_PLIES`](super::tree::TABLEBASE_PLIES)).

use super::config::{Algorithm, SearchConfig};
use super::counters::SearchCounters;
use super::error::SearchError;
use super::leaf::{LeafRequest, NO_EDGE};
use super::noise;
use super::policies::{self, RootContext, Scratch};
use super::result::SearchResult;
use super::tree::{NodeId, NodeState, Proof, Tree};
use crate::evaluator::{EvalRequest, Evaluation, Evaluator, Wdl};
use crate::tablebase::{self, Tablebases, TbWdl};
use rand::Rng;
use shashki_rules::{Color, Game, GameResult, Move, MoveList, Outcome, PathMode};
use std::sync::Arc;

/// Most forced moves one descent passes through before it evaluates a
/// position anyway (a guard: the draw rules end such chains long before).
const MAX_PASSES_PER_DESCENT: u32 = 64;

/// What one descent found.
enum Descent {
    /// A new leaf to evaluate.
    Leaf,
    /// A terminal node, already backed up.
    Terminal,
    /// A node already awaiting evaluation (virtual loss added to steer the
    /// next descents elsewhere; removed when the batch is complete).
    Collision,
}

/// A Monte-Carlo tree search rooted at a game position.
///
/// Reproducible: given the same game, config, evaluator answers and RNG
/// seed, it makes the same choices. Single-threaded by design; run many
/// searches on many threads and share one (batching) evaluator.
#[derive(Clone, Debug)]
pub struct Search {
    config: SearchConfig,
    game: Game,
    tree: Tree,
    /// Endgame tables probed at new nodes (`None`: off).
    tablebases: Option<Arc<Tablebases>>,

    // State of the current search (set by `begin`).
    started: bool,
    full_search: bool,
    budget: u32,
    simulations: u32,
    pending_below_root: u32,
    root_moves: usize,
    /// Dirichlet noise waiting for (or applied to) the root priors.
    noise: Vec<f32>,
    noise_applied: bool,
    /// Root priors before noise, restored before the next search.
    clean_priors: Vec<f32>,
    /// Gumbel root state.
    gumbel: Vec<f32>,
    root_visits: Vec<u32>,
    num_considered: usize,
    /// Evaluations and pass-throughs since the search was made.
    counters: SearchCounters,

    // Reused buffers.
    leaves: Vec<LeafRequest>,
    num_pending: usize,
    /// Leaves handed out by `take_batch` and not yet applied or abandoned.
    outstanding: usize,
    collision_nodes: Vec<NodeId>,
    collision_lens: Vec<u32>,
    priors_buf: Vec<f32>,
    move_buf: MoveBuf,
    scratch: Scratch,
    evals: Vec<Evaluation>,
    requests: Vec<EvalRequest<'static>>,
}

/// Leaves handed out by [`Search::take_batch`], to be evaluated outside the
/// search's lock and given back with [`Search::apply_batch`].
#[derive(Debug, Default)]
pub struct LeafBatch {
    leaves: Vec<LeafRequest>,
}

impl LeafBatch {
    /// The leaves, in the order their evaluations must follow.
    pub fn leaves(&self) -> &[LeafRequest] {
        &self.leaves
    }

    /// Number of leaves.
    pub fn len(&self) -> usize {
        self.leaves.len()
    }

    /// True if the batch holds no leaf.
    pub fn is_empty(&self) -> bool {
        self.leaves.is_empty()
    }
}

/// A move list kept for generation (boxed: it is 6 KB).
#[derive(Clone, Default)]
struct MoveBuf(Box<MoveList>);

impl std::fmt::Debug for MoveBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MoveBuf({} moves)", self.0.len())
    }
}

/// The W/D/L of a finished game for the side to move.
pub(crate) fn terminal_wdl(outcome: &Outcome, side_to_move: Color) -> Wdl {
    match (outcome.result, side_to_move) {
        (GameResult::Draw, _) => Wdl::DRAW,
        (GameResult::WhiteWins, Color::White) | (GameResult::BlackWins, Color::Black) => Wdl::WIN,
        _ => Wdl::LOSS,
    }
}

/// The tablebases' value of the current position of `game` as a proof
/// (distance: [`tablebase::distance`]).
fn tablebase_proof(tb: &Tablebases, game: &Game) -> Option<Proof> {
    let probe = tablebase::probe(tb, game)?;
    let distance = tablebase::distance(&probe, game.moves().last());
    Some(match probe.wdl {
        TbWdl::Win => Proof::tablebase(true, distance),
        TbWdl::Loss => Proof::tablebase(false, distance),
        TbWdl::Draw => Proof::Draw,
    })
}

/// Judges a just-created child (`game` standing on it): terminal by the
/// arbiter, or solved by the tablebases.
fn judge_new_child(tree: &mut Tree, game: &Game, tb: Option<&Tablebases>, child: NodeId) {
    if let Some(outcome) = game.outcome() {
        tree.set_terminal(child, terminal_wdl(&outcome, game.side_to_move()));
    } else if let Some(proof) = tb.and_then(|tb| tablebase_proof(tb, game)) {
        tree.set_proof(child, proof);
    }
}

/// Reuses a vector's allocation for a different lifetime (the in-place
/// `collect` keeps the buffer since the element type is the same).
fn recycle<'a, 'b>(mut v: Vec<EvalRequest<'a>>) -> Vec<EvalRequest<'b>> {
    v.clear();
    v.into_iter()
        .map(|_| unreachable!("the vector is empty"))
        .collect()
}

impl Search {
    /// A search rooted at the current position of `game`.
    pub fn new(game: Game, config: SearchConfig) -> Result<Search, SearchError> {
        config.validate()?;
        Ok(Search {
            config,
            game,
            tree: Tree::new(),
            tablebases: None,
            started: false,
            full_search: true,
            budget: 0,
            simulations: 0,
            pending_below_root: 0,
            root_moves: 0,
            noise: Vec::new(),
            noise_applied: false,
            clean_priors: Vec::new(),
            gumbel: Vec::new(),
            root_visits: Vec::new(),
            num_considered: 0,
            counters: SearchCounters::default(),
            leaves: Vec::new(),
            num_pending: 0,
            outstanding: 0,
            collision_nodes: Vec::new(),
            collision_lens: Vec::new(),
            priors_buf: Vec::new(),
            move_buf: MoveBuf::default(),
            scratch: Scratch::default(),
            evals: Vec::new(),
            requests: Vec::new(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Replaces the configuration (takes effect at the next `begin`).
    pub fn set_config(&mut self, config: SearchConfig) -> Result<(), SearchError> {
        config.validate()?;
        self.config = config;
        Ok(())
    }

    /// Probes `tablebases` at every new node (and solves a root in them);
    /// `None` switches that off. Tables made for other draw rules than the
    /// root game's are refused, and dropped by a later [`Search::reset`] to
    /// a game under other rules. Takes effect for nodes created from now on.
    pub fn set_tablebases(
        &mut self,
        tablebases: Option<Arc<Tablebases>>,
    ) -> Result<(), SearchError> {
        if let Some(tb) = &tablebases
            && !tb.follows(self.game.rules())
        {
            return Err(SearchError::TablebaseRules);
        }
        self.tablebases = tablebases;
        Ok(())
    }

    /// The tablebases in use, if any.
    pub fn tablebases(&self) -> Option<&Arc<Tablebases>> {
        self.tablebases.as_ref()
    }

    /// A root in the tablebases: every child is created and judged, so the
    /// solver proves the root at once and picks the tables' best move.
    fn solve_root_from_tablebases(&mut self) {
        let tb = self.tablebases.as_deref();
        if tb.and_then(|tb| tablebase_proof(tb, &self.game)).is_none() {
            return;
        }
        let moves: Vec<Move> = self
            .tree
            .edges(Tree::ROOT)
            .iter()
            .map(|e| *e.mv())
            .collect();
        let mut last = None;
        for (i, mv) in moves.iter().enumerate() {
            let (child, created) = self.tree.child_or_insert(Tree::ROOT, i);
            if created {
                self.game.play(mv);
                judge_new_child(
                    &mut self.tree,
                    &self.game,
                    self.tablebases.as_deref(),
                    child,
                );
                self.game.undo();
            }
            last = Some(child);
        }
        if let Some(child) = last {
            self.tree.propagate_proofs(&[Tree::ROOT, child]);
        }
    }

    /// The game at the root.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The tree, read-only (for inspection and tests).
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Simulations done by the current (or last) search.
    pub fn simulations(&self) -> u32 {
        self.simulations
    }

    /// Simulation budget of the current (or last) search.
    pub fn budget(&self) -> u32 {
        self.budget
    }

    /// What the searches of this object spent their evaluations on.
    pub fn counters(&self) -> SearchCounters {
        self.counters
    }

    /// Whether the current (or last) search is a full one.
    pub fn is_full_search(&self) -> bool {
        self.full_search
    }

    /// Starts a search of the root position: draws the playout cap, the
    /// root noise (PUCT) or the Gumbel samples, all from `rng`. Visits kept
    /// from earlier searches stay.
    pub fn begin<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Result<(), SearchError> {
        self.abandon_pending();
        self.restore_clean_priors();
        if let Some(outcome) = self.game.outcome() {
            self.started = false;
            return Err(SearchError::GameOver(outcome));
        }
        let config = &self.config;
        self.full_search = if config.full_search_fraction >= 1.0 {
            true
        } else if config.full_search_fraction <= 0.0 {
            false
        } else {
            rng.random::<f32>() < config.full_search_fraction
        };
        self.budget = if self.full_search {
            config.full_simulations
        } else {
            config.fast_simulations
        };
        self.simulations = 0;
        self.pending_below_root = 0;
        self.root_moves = if self.root_state() == NodeState::Expanded {
            self.tree.node(Tree::ROOT).num_edges()
        } else {
            self.game.legal_moves().len()
        };
        let n = self.root_moves;

        self.noise.clear();
        if config.algorithm == Algorithm::Puct && config.root_noise && self.full_search && n > 1 {
            self.noise.resize(n, 0.0);
            noise::dirichlet(rng, config.dirichlet_alpha, &mut self.noise);
        }
        self.gumbel.clear();
        self.root_visits.clear();
        if config.algorithm == Algorithm::Gumbel {
            self.gumbel.resize(n, 0.0);
            noise::gumbel(rng, config.gumbel_scale, &mut self.gumbel);
            self.root_visits.resize(n, 0);
            self.num_considered = (config.gumbel_max_considered as usize).min(n);
        }
        if self.root_state() == NodeState::Expanded {
            self.apply_root_noise();
        }
        self.started = true;
        Ok(())
    }

    /// True when the current search has spent its budget (or has nothing to
    /// decide: a single legal move once the root has a value, a root whose
    /// value the solver proved, or a tree that reached `max_tree_nodes`).
    pub fn done(&self) -> bool {
        self.started
            && self.root_state() == NodeState::Expanded
            && ((self.root_moves <= 1 && self.tree.node(Tree::ROOT).visits() > 0)
                || self.simulations >= self.budget
                || self.root_proof().is_proven()
                || self.tree.len() >= self.config.max_tree_nodes as usize)
    }

    /// The root's value as proven by the solver so far.
    pub fn root_proof(&self) -> Proof {
        self.tree.node(Tree::ROOT).proof()
    }

    /// Leaves waiting for `apply`.
    pub fn pending(&self) -> &[LeafRequest] {
        &self.leaves[..self.num_pending]
    }

    /// Descends until `max_leaves` new leaves are found (virtual loss
    /// spreads the descents) and returns them for evaluation. Terminal and
    /// proven nodes met on the way are scored at once and count as
    /// simulations; at most `4 * max_leaves + 64` descents are made per
    /// call, so a call returns quickly (possibly with no leaf) even when
    /// every line ends in a known result, and its caller can look at the
    /// clock. Returns the pending leaves unchanged if the last batch was not
    /// applied yet, and nothing before `begin` or once `done`.
    pub fn select_leaves(&mut self, max_leaves: usize) -> &[LeafRequest] {
        if !self.started || self.num_pending > 0 {
            return self.pending();
        }
        let mut collisions = 0;
        let mut descents = 0;
        let max_descents = 4 * max_leaves + 64;
        while self.num_pending < max_leaves && !self.done() && descents < max_descents {
            descents += 1;
            let root_state = self.root_state();
            if root_state == NodeState::Pending {
                break;
            }
            if root_state == NodeState::Expanded
                && self.simulations + self.pending_below_root >= self.budget
            {
                break;
            }
            match self.descend() {
                Descent::Leaf => {
                    if self.leaves[self.num_pending].node != Tree::ROOT {
                        self.pending_below_root += 1;
                    }
                    self.num_pending += 1;
                }
                Descent::Terminal => {}
                Descent::Collision => {
                    collisions += 1;
                    if collisions >= max_leaves {
                        break;
                    }
                }
            }
        }
        self.remove_collision_losses();
        self.pending()
    }

    /// Feeds the evaluations of the pending leaves (same order) back into
    /// the tree. Priors are renormalised (uniform if unusable) and W/D/L
    /// sanitised, so a sloppy evaluator cannot corrupt the statistics.
    pub fn apply(&mut self, evals: &[Evaluation]) -> Result<(), SearchError> {
        let mut leaves = std::mem::take(&mut self.leaves);
        let applied = self.apply_leaves(&leaves[..self.num_pending], evals);
        if applied.is_ok() {
            self.num_pending = 0;
        }
        std::mem::swap(&mut self.leaves, &mut leaves);
        applied
    }

    /// Selects up to `max_leaves` leaves (as [`Search::select_leaves`]) and
    /// hands them out as a batch of their own, so that several batches can
    /// be evaluated at once (by several threads sharing this search behind a
    /// lock) while their virtual losses steer the next selections apart.
    /// Every batch must come back through [`Search::apply_batch`] or
    /// [`Search::abandon_batch`] before `finish`.
    pub fn take_batch(&mut self, max_leaves: usize) -> LeafBatch {
        let n = self.select_leaves(max_leaves).len();
        let leaves: Vec<LeafRequest> = self.leaves.drain(..n).collect();
        self.num_pending = 0;
        self.outstanding += n;
        LeafBatch { leaves }
    }

    /// Feeds the evaluations of a batch from [`Search::take_batch`] (same
    /// order) back into the tree.
    pub fn apply_batch(
        &mut self,
        batch: LeafBatch,
        evals: &[Evaluation],
    ) -> Result<(), SearchError> {
        self.outstanding -= batch.leaves.len();
        let applied = self.apply_leaves(&batch.leaves, evals);
        if applied.is_err() {
            self.forget_leaves(&batch.leaves);
        }
        applied
    }

    /// Gives back a batch from [`Search::take_batch`] without evaluations
    /// (its virtual losses and pending marks are removed).
    pub fn abandon_batch(&mut self, batch: LeafBatch) {
        self.outstanding -= batch.leaves.len();
        self.forget_leaves(&batch.leaves);
    }

    /// Leaves handed out by `take_batch` and not yet given back.
    pub fn outstanding(&self) -> usize {
        self.outstanding
    }

    fn apply_leaves(
        &mut self,
        leaves: &[LeafRequest],
        evals: &[Evaluation],
    ) -> Result<(), SearchError> {
        if evals.len() != leaves.len() {
            return Err(SearchError::EvaluationCount {
                expected: leaves.len(),
                got: evals.len(),
            });
        }
        for (index, (leaf, eval)) in leaves.iter().zip(evals).enumerate() {
            if eval.priors.len() != leaf.moves.len() {
                return Err(SearchError::PriorCount {
                    index,
                    expected: leaf.moves.len(),
                    got: eval.priors.len(),
                });
            }
        }
        let mut root_expanded = false;
        for (leaf, eval) in leaves.iter().zip(evals) {
            self.counters.evaluations += 1;
            self.counters.forced_evaluations += u64::from(leaf.moves.len() == 1);
            self.counters.capture_evaluations += u64::from(leaf.position.has_capture());
            normalised_priors(&eval.priors, &mut self.priors_buf);
            let wdl = sanitised_wdl(eval.wdl);
            self.tree
                .expand(leaf.node, &leaf.moves, &self.priors_buf, wdl);
            self.tree.backup(&leaf.path, wdl, true);
            if leaf.node == Tree::ROOT {
                self.root_moves = leaf.moves.len();
                root_expanded = true;
            } else {
                self.simulations += 1;
                self.pending_below_root -= 1;
                if let Some(v) = self.root_visits.get_mut(leaf.root_edge as usize) {
                    *v += 1;
                }
            }
        }
        if root_expanded {
            self.apply_root_noise();
            self.solve_root_from_tablebases();
        }
        Ok(())
    }

    /// Ends the current search: drops leaves still pending and returns the
    /// chosen move, policy target, value and principal variation. `rng`
    /// breaks ties and samples with the PUCT temperature.
    pub fn finish<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Result<SearchResult, SearchError> {
        self.abandon_pending();
        if self.root_state() != NodeState::Expanded {
            return Err(SearchError::RootNotEvaluated);
        }
        self.started = false;
        let ctx = RootContext {
            gumbel: &self.gumbel,
            root_visits: &self.root_visits,
            num_considered: self.num_considered,
            budget: self.budget as usize,
        };
        let mut result = policies::build_result(
            &self.tree,
            &self.config,
            &ctx,
            &self.clean_priors,
            self.noise_applied,
            self.simulations,
            self.full_search && self.root_moves > 1,
            &mut self.scratch,
            rng,
        );
        let edges = self.tree.edges(Tree::ROOT);
        let chosen = edges
            .iter()
            .position(|e| *e.mv() == result.best_move)
            .unwrap_or(0);
        let best = solver_choice(&self.tree, chosen);
        if best != chosen {
            result.best_move = *edges[best].mv();
            result.principal_variation = policies::principal_variation(&self.tree, best);
        }
        result.proof = self.root_proof();
        Ok(result)
    }

    /// Runs a whole search against `evaluator`, gathering
    /// `config.leaves_per_batch` leaves per call.
    pub fn run<E, R>(&mut self, evaluator: &E, rng: &mut R) -> Result<SearchResult, SearchError>
    where
        E: Evaluator + ?Sized,
        R: Rng + ?Sized,
    {
        self.begin(rng)?;
        let k = self.config.leaves_per_batch as usize;
        while !self.done() {
            let before = (self.simulations, self.root_state());
            let n = self.select_leaves(k).len();
            if n == 0 {
                if (self.simulations, self.root_state()) == before {
                    break; // cannot happen; guards against spinning forever
                }
                continue;
            }
            if self.evals.len() < n {
                self.evals.resize_with(n, Evaluation::default);
            }
            let mut requests = recycle(std::mem::take(&mut self.requests));
            requests.extend(self.leaves[..n].iter().map(LeafRequest::eval_request));
            evaluator.evaluate(&requests, &mut self.evals[..n]);
            self.requests = recycle(requests);
            let evals = std::mem::take(&mut self.evals);
            let applied = self.apply(&evals[..n]);
            self.evals = evals;
            applied?;
        }
        self.finish(rng)
    }

    /// Plays `mv` at the root and keeps its subtree (if `reuse_tree`).
    pub fn advance(&mut self, mv: &Move) -> Result<(), SearchError> {
        self.abandon_pending();
        self.restore_clean_priors();
        self.started = false;
        let index = if self.root_state() == NodeState::Expanded {
            self.tree
                .edges(Tree::ROOT)
                .iter()
                .position(|e| e.mv() == mv)
        } else {
            self.game.legal_moves().iter().position(|m| m == mv)
        };
        let Some(index) = index else {
            return Err(SearchError::IllegalMove {
                mv: mv.to_string(),
                fen: self.game.position().to_fen(),
            });
        };
        self.game.play(mv);
        if self.config.reuse_tree && self.root_state() == NodeState::Expanded {
            self.tree.reroot(index);
        } else {
            self.tree.clear();
        }
        Ok(())
    }

    /// Starts over from another game, dropping the tree.
    pub fn reset(&mut self, game: Game) {
        self.abandon_pending();
        self.started = false;
        self.noise_applied = false;
        self.game = game;
        self.tree.clear();
        if self
            .tablebases
            .as_ref()
            .is_some_and(|tb| !tb.follows(self.game.rules()))
        {
            self.tablebases = None;
        }
    }

    /// Moves the root to the current position of `game`: if `game`
    /// continues the root game (same start, its moves extend ours), the
    /// extra moves are played with [`Search::advance`] and the tree is
    /// reused; otherwise the search restarts from `game`. Returns whether
    /// the tree was kept.
    pub fn sync_to(&mut self, game: &Game) -> bool {
        let ours = self.game.moves();
        let continues = game.start() == self.game.start()
            && game.rules() == self.game.rules()
            && game.moves().len() >= ours.len()
            && game.moves()[..ours.len()] == *ours;
        if continues {
            let extra: Vec<Move> = game.moves()[ours.len()..].to_vec();
            if extra.iter().all(|mv| self.advance(mv).is_ok()) {
                return true;
            }
        }
        self.reset(game.clone());
        false
    }

    fn root_state(&self) -> NodeState {
        self.tree.node(Tree::ROOT).state()
    }

    /// One descent from the root, into leaf slot `num_pending`.
    // Long: the selection walk is the search's hot path, kept in one body
    // (solver, virtual loss and transpositions interleave step by step).
    #[allow(clippy::too_many_lines)]
    fn descend(&mut self) -> Descent {
        if self.leaves.len() <= self.num_pending {
            self.leaves.push(LeafRequest::default());
        }
        let ctx = RootContext {
            gumbel: &self.gumbel,
            root_visits: &self.root_visits,
            num_considered: self.num_considered,
            budget: self.budget as usize,
        };
        let leaf = &mut self.leaves[self.num_pending];
        leaf.path.clear();
        leaf.path.push(Tree::ROOT);
        leaf.root_edge = NO_EDGE;
        let mut node = Tree::ROOT;
        let mut plies = 0;
        let mut passes = 0;
        let found = loop {
            let proof = self.tree.node(node).proof();
            if node != Tree::ROOT
                && let Some(wdl) = proof.wdl()
            {
                // Terminal or solved: its exact value, no evaluation needed.
                self.tree.backup(&leaf.path, wdl, false);
                self.tree.propagate_proofs(&leaf.path);
                break Descent::Terminal;
            }
            match self.tree.node(node).state() {
                NodeState::Terminal => {
                    let wdl = self.tree.node(node).eval();
                    self.tree.backup(&leaf.path, wdl, false);
                    break Descent::Terminal;
                }
                NodeState::Pending => {
                    self.tree.add_in_flight(&leaf.path);
                    self.collision_nodes.extend_from_slice(&leaf.path);
                    self.collision_lens.push(leaf.path.len() as u32);
                    break Descent::Collision;
                }
                NodeState::Unexpanded => {
                    // Generate into a kept list: returning a `MoveList` by
                    // value copies its whole 6 KB buffer.
                    self.game
                        .position()
                        .generate(&mut self.move_buf.0, PathMode::Distinct);
                    let moves = self.move_buf.0.as_slice();
                    let forced = moves.len() == 1 && self.config.pass_forced_moves;
                    let captures = moves.len() > 1
                        && self.config.capture_leaves
                        && self.game.position().has_capture();
                    if (forced || captures) && node != Tree::ROOT && passes < MAX_PASSES_PER_DESCENT
                    {
                        // No call here: on to a child, with the parent's
                        // view as the estimate until a value comes back.
                        let parent = leaf.path[leaf.path.len() - 2];
                        let estimate = self.tree.node(parent).eval().flipped();
                        self.tree.pass_through(node, moves, estimate);
                        if forced {
                            self.counters.passed_through += 1;
                        } else {
                            self.counters.passed_captures += 1;
                        }
                        passes += 1;
                        continue;
                    }
                    self.tree.set_pending(node);
                    self.tree.add_in_flight(&leaf.path);
                    leaf.node = node;
                    leaf.position = *self.game.position();
                    leaf.draw_state = self.game.draw_state();
                    leaf.moves.clear();
                    leaf.moves.extend_from_slice(self.move_buf.0.as_slice());
                    break Descent::Leaf;
                }
                NodeState::Expanded => {
                    let root = (node == Tree::ROOT).then_some(&ctx);
                    let i = policies::select_child(
                        &self.tree,
                        node,
                        &self.config,
                        root,
                        &mut self.scratch,
                    );
                    if node == Tree::ROOT {
                        leaf.root_edge = i as u32;
                    }
                    let mv = *self.tree.edges(node)[i].mv();
                    self.game.play(&mv);
                    plies += 1;
                    let (child, created) = self.tree.child_or_insert(node, i);
                    if created {
                        let tb = self.tablebases.as_deref();
                        judge_new_child(&mut self.tree, &self.game, tb, child);
                    }
                    leaf.path.push(child);
                    node = child;
                }
            }
        };
        for _ in 0..plies {
            self.game.undo();
        }
        if let Descent::Terminal = found {
            self.simulations += 1;
            let root_edge = self.leaves[self.num_pending].root_edge as usize;
            if let Some(v) = self.root_visits.get_mut(root_edge) {
                *v += 1;
            }
        }
        found
    }

    /// Removes the virtual losses that collisions left on their paths.
    fn remove_collision_losses(&mut self) {
        let mut start = 0;
        for &len in &self.collision_lens {
            let end = start + len as usize;
            self.tree
                .remove_in_flight(&self.collision_nodes[start..end]);
            start = end;
        }
        self.collision_nodes.clear();
        self.collision_lens.clear();
    }

    /// Forgets pending leaves (their virtual loss and pending marks).
    fn abandon_pending(&mut self) {
        let leaves = std::mem::take(&mut self.leaves);
        self.forget_leaves(&leaves[..self.num_pending]);
        self.leaves = leaves;
        self.num_pending = 0;
    }

    /// Removes the virtual losses and pending marks of `leaves`.
    fn forget_leaves(&mut self, leaves: &[LeafRequest]) {
        for leaf in leaves {
            self.tree.remove_in_flight(&leaf.path);
            self.tree.unset_pending(leaf.node);
            if leaf.node != Tree::ROOT {
                self.pending_below_root -= 1;
            }
        }
    }

    /// Mixes the drawn Dirichlet noise into the (expanded) root's priors,
    /// keeping the clean priors to restore later.
    fn apply_root_noise(&mut self) {
        if self.noise.is_empty() || self.noise_applied {
            return;
        }
        let edges = self.tree.edges(Tree::ROOT);
        if edges.len() != self.noise.len() {
            return;
        }
        self.clean_priors.clear();
        self.clean_priors.extend(edges.iter().map(|e| e.prior()));
        self.priors_buf.clear();
        self.priors_buf.extend_from_slice(&self.clean_priors);
        noise::mix_noise(
            &mut self.priors_buf,
            &self.noise,
            self.config.dirichlet_fraction,
        );
        for (i, &p) in self.priors_buf.iter().enumerate() {
            self.tree.set_prior(Tree::ROOT, i, p);
        }
        self.noise_applied = true;
    }

    /// Undoes [`Search::apply_root_noise`].
    fn restore_clean_priors(&mut self) {
        if !self.noise_applied {
            return;
        }
        if self.tree.edges(Tree::ROOT).len() == self.clean_priors.len() {
            for (i, &p) in self.clean_priors.iter().enumerate() {
                self.tree.set_prior(Tree::ROOT, i, p);
            }
        }
        self.noise_applied = false;
    }
}

/// The root move to play given the solver's proofs, overriding `chosen`
/// (the visit-count choice) where proofs know better: the shortest proven
/// win, the longest resistance in a proven loss, a drawing move in a proven
/// draw, and never a move proven lost while another exists.
fn solver_choice(tree: &Tree, chosen: usize) -> usize {
    let edges = tree.edges(Tree::ROOT);
    let proof_of = |i: usize| {
        edges[i]
            .child()
            .map_or(Proof::Unknown, |c| tree.node(c).proof())
    };
    let visits_of = |i: usize| edges[i].child().map_or(0, |c| tree.node(c).visits());
    let most_visited_where = |keep: &dyn Fn(Proof) -> bool| {
        (0..edges.len())
            .filter(|&i| keep(proof_of(i)))
            .max_by_key(|&i| (visits_of(i), std::cmp::Reverse(i)))
    };
    match tree.node(Tree::ROOT).proof() {
        // The child is lost for its mover in n - 1 plies.
        Proof::Win(n) => (0..edges.len())
            .find(|&i| proof_of(i) == Proof::Loss(n.saturating_sub(1)))
            .unwrap_or(chosen),
        Proof::Loss(_) => (0..edges.len())
            .max_by_key(|&i| match proof_of(i) {
                Proof::Win(m) => (m, std::cmp::Reverse(i)),
                _ => (0, std::cmp::Reverse(i)),
            })
            .unwrap_or(chosen),
        Proof::Draw if proof_of(chosen) == Proof::Draw => chosen,
        Proof::Draw => most_visited_where(&|p| p == Proof::Draw).unwrap_or(chosen),
        Proof::Unknown if matches!(proof_of(chosen), Proof::Win(_)) => {
            most_visited_where(&|p| !matches!(p, Proof::Win(_))).unwrap_or(chosen)
        }
        Proof::Unknown => chosen,
    }
}

/// Copies priors into `out`, normalised to sum 1; uniform if they are not
/// finite and non-negative with a positive sum.
fn normalised_priors(priors: &[f32], out: &mut Vec<f32>) {
    out.clear();
    out.extend_from_slice(priors);
    let sum: f32 = out.iter().sum();
    let usable = sum.is_finite() && sum > 0.0 && out.iter().all(|&p| p >= 0.0);
    if usable {
        for p in out.iter_mut() {
            *p /= sum;
        }
    } else if !out.is_empty() {
        let uniform = 1.0 / out.len() as f32;
        out.fill(uniform);
    }
}

/// W/D/L clamped to non-negative and normalised; a draw if unusable.
fn sanitised_wdl(wdl: Wdl) -> Wdl {
    let parts =
        [wdl.win, wdl.draw, wdl.loss].map(|x| if x.is_finite() { x.max(0.0) } else { f32::NAN });
    let sum: f32 = parts.iter().sum();
    if !(sum.is_finite() && sum > 0.0) {
        return Wdl::DRAW;
    }
    Wdl {
        win: parts[0] / sum,
        draw: parts[1] / sum,
        loss: parts[2] / sum,
    }
}
