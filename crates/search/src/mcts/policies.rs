//! The two search policies, as in mctx: AlphaZero's PUCT and Gumbel
//! AlphaZero. Here they differ only in how a child is selected, how the
//! move is chosen and what the policy target is; [`Search`](super::Search)
//! runs the loop, and [`puct_policy`](super::puct_policy) and
//! [`gumbel_policy`](super::gumbel_policy) are its one-shot entry points.

use super::action_selection::{PuctChild, PuctParams, gumbel_interior_select, puct_select};
use super::config::{Algorithm, SearchConfig};
use super::qtransforms::{QTransform, completed_sigma_q, improved_policy, logit};
use super::result::{ChildStats, SearchResult};
use super::seq_halving::{considered_visit, score_considered};
use super::tree::{NodeId, NodeState, Proof, Tree};
use rand::Rng;
use shashki_rules::Move;

/// Per-search Gumbel root state, borrowed from the [`Search`](super::Search).
pub(crate) struct RootContext<'a> {
    /// Gumbel sample per root edge (scaled).
    pub gumbel: &'a [f32],
    /// Visits per root edge in this search only.
    pub root_visits: &'a [u32],
    /// Actions considered by sequential halving (m, at most the legal moves).
    pub num_considered: usize,
    /// The simulation budget the halving schedule is spread over.
    pub budget: usize,
}

/// Reused per-node buffers for the Gumbel rules.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    priors: Vec<f32>,
    visits: Vec<f32>,
    q: Vec<f32>,
    sigma: Vec<f32>,
    policy: Vec<f32>,
    counts: Vec<u32>,
}

impl Scratch {
    /// Loads the children of `node`: prior, visits (in flight included) and
    /// Q for the node's mover (virtual loss included).
    fn load(&mut self, tree: &Tree, node: NodeId, virtual_loss: f32) {
        let edges = tree.edges(node);
        // Every entry is overwritten below or by the transforms, so only
        // the length needs setting (no clearing).
        for buf in [
            &mut self.priors,
            &mut self.visits,
            &mut self.q,
            &mut self.sigma,
            &mut self.policy,
        ] {
            buf.truncate(edges.len());
            buf.resize(edges.len(), 0.0);
        }
        for (i, edge) in edges.iter().enumerate() {
            self.priors[i] = edge.prior();
            (self.visits[i], self.q[i]) = match edge.child() {
                Some(child) => {
                    let child = tree.node(child);
                    (
                        child.visits_with_in_flight() as f32,
                        child.q_from_parent(virtual_loss),
                    )
                }
                None => (0.0, 0.0),
            };
        }
    }

    /// `sigma(completed Q)` of the loaded children into `self.sigma`.
    fn sigma_q(&mut self, config: &SearchConfig, raw_value: f32) {
        let transform = QTransform {
            c_visit: config.c_visit,
            c_scale: config.c_scale,
            rescale_values: config.rescale_values,
        };
        completed_sigma_q(
            &transform,
            raw_value,
            &self.priors,
            &self.q,
            &self.visits,
            &mut self.sigma,
        );
    }
}

/// The child a descent follows from `node`; `root` is set at the root.
pub(crate) fn select_child(
    tree: &Tree,
    node: NodeId,
    config: &SearchConfig,
    root: Option<&RootContext<'_>>,
    scratch: &mut Scratch,
) -> usize {
    let chosen = match (config.algorithm, root) {
        (Algorithm::Puct, _) => puct_child(tree, node, config, root.is_some()),
        (Algorithm::Gumbel, Some(ctx)) => gumbel_root_child(tree, node, config, ctx, scratch),
        (Algorithm::Gumbel, None) => {
            scratch.load(tree, node, config.virtual_loss);
            scratch.sigma_q(config, tree.node(node).eval().value());
            improved_policy(&scratch.priors, &scratch.sigma, &mut scratch.policy);
            gumbel_interior_select(&scratch.policy, &scratch.visits)
        }
    };
    avoid_proven_loss(tree, node, chosen)
}

/// True if the child behind edge `i` of `node` is proven won for its own
/// mover, i.e. lost for the mover at `node`.
fn proven_lost(tree: &Tree, node: NodeId, i: usize) -> bool {
    tree.edges(node)[i]
        .child()
        .is_some_and(|c| matches!(tree.node(c).proof(), Proof::Win(_)))
}

/// `chosen`, unless its move is proven lost and another is not: then the
/// other move with the highest prior (the solver never walks into a proven
/// loss while a move with a chance exists).
fn avoid_proven_loss(tree: &Tree, node: NodeId, chosen: usize) -> usize {
    if !proven_lost(tree, node, chosen) {
        return chosen;
    }
    let edges = tree.edges(node);
    (0..edges.len())
        .filter(|&i| !proven_lost(tree, node, i))
        .max_by(|&a, &b| edges[a].prior().total_cmp(&edges[b].prior()))
        .unwrap_or(chosen)
}

fn puct_child(tree: &Tree, node: NodeId, config: &SearchConfig, is_root: bool) -> usize {
    let parent = tree.node(node);
    let params = PuctParams {
        c_init: config.c_init,
        c_base: config.c_base,
        fpu_reduction: if is_root {
            config.root_fpu_reduction
        } else {
            config.fpu_reduction
        },
        parent_visits: parent.visits_with_in_flight() as f32,
        parent_value: parent.value(),
    };
    let vl = config.virtual_loss;
    let children = tree.edges(node).iter().map(|edge| match edge.child() {
        None => PuctChild {
            prior: edge.prior(),
            visits: 0.0,
            q: 0.0,
        },
        Some(child) => {
            let child = tree.node(child);
            PuctChild {
                prior: edge.prior(),
                visits: child.visits_with_in_flight() as f32,
                // A move proven lost is never chosen while another exists.
                q: match child.proof() {
                    Proof::Win(_) => f32::NEG_INFINITY,
                    _ => child.q_from_parent(vl),
                },
            }
        }
    });
    puct_select(children, &params)
}

/// Sequential halving at the root: among the actions whose visits in this
/// search equal the table's entry, the highest `g + logit + sigma(q)`.
fn gumbel_root_child(
    tree: &Tree,
    node: NodeId,
    config: &SearchConfig,
    ctx: &RootContext<'_>,
    scratch: &mut Scratch,
) -> usize {
    scratch.load(tree, node, config.virtual_loss);
    scratch.sigma_q(config, tree.node(node).eval().value());
    let edges = tree.edges(node);
    scratch.counts.clear();
    scratch
        .counts
        .extend(edges.iter().enumerate().map(|(i, edge)| {
            let in_flight = edge.child().map_or(0, |c| tree.node(c).in_flight());
            ctx.root_visits.get(i).copied().unwrap_or(0) + in_flight
        }));
    let simulation: u32 = scratch.counts.iter().sum();
    let considered_visit = considered_visit(ctx.num_considered, ctx.budget, simulation as usize);
    let best = gumbel_argmax(
        ctx.gumbel,
        &scratch.priors,
        &scratch.sigma,
        &scratch.counts,
        considered_visit,
    );
    match best {
        Some(i) => i,
        // Nothing has exactly the table's count (virtual losses from a
        // collision can cause this): take the least visited instead.
        None => {
            let least = scratch.counts.iter().copied().min().unwrap_or(0);
            gumbel_argmax(
                ctx.gumbel,
                &scratch.priors,
                &scratch.sigma,
                &scratch.counts,
                least,
            )
            .unwrap_or(0)
        }
    }
}

/// The argmax of [`score_considered`] over the root actions.
fn gumbel_argmax(
    gumbel: &[f32],
    priors: &[f32],
    sigma: &[f32],
    counts: &[u32],
    considered_visit: u32,
) -> Option<usize> {
    let max_logit = logit(priors.iter().copied().fold(0.0, f32::max));
    let mut best = None;
    let mut best_score = f32::NEG_INFINITY;
    for (i, (&p, (&s, &n))) in priors.iter().zip(sigma.iter().zip(counts)).enumerate() {
        if n != considered_visit {
            continue; // masked out; skip the logarithm
        }
        let g = gumbel.get(i).copied().unwrap_or(0.0);
        let score = score_considered(considered_visit, n, g, logit(p) - max_logit, s);
        if score > best_score {
            best_score = score;
            best = Some(i);
        }
    }
    best
}

/// The result of a finished search.
#[allow(clippy::too_many_arguments)]
pub(crate) fn build_result<R: Rng + ?Sized>(
    tree: &Tree,
    config: &SearchConfig,
    ctx: &RootContext<'_>,
    clean_priors: &[f32],
    noise_applied: bool,
    simulations: u32,
    full_search: bool,
    scratch: &mut Scratch,
    rng: &mut R,
) -> SearchResult {
    let root = Tree::ROOT;
    let edges = tree.edges(root);
    let n = edges.len();
    scratch.load(tree, root, config.virtual_loss);
    if noise_applied && clean_priors.len() == n {
        scratch.priors.copy_from_slice(clean_priors);
    }
    let visits: Vec<u32> = edges
        .iter()
        .map(|e| e.child().map_or(0, |c| tree.node(c).visits()))
        .collect();
    let total: u32 = visits.iter().sum();

    let (best, policy): (usize, Vec<f32>) = if n == 1 {
        (0, vec![1.0])
    } else {
        match config.algorithm {
            Algorithm::Puct => {
                let best = if total == 0 {
                    argmax(&scratch.priors)
                } else {
                    choose_by_visits(&visits, &scratch.q, config.temperature, rng)
                };
                let policy = if total == 0 {
                    scratch.priors.clone()
                } else {
                    visits.iter().map(|&v| v as f32 / total as f32).collect()
                };
                (best, policy)
            }
            Algorithm::Gumbel => {
                scratch.sigma_q(config, tree.node(root).eval().value());
                let mut counts: Vec<u32> = (0..n)
                    .map(|i| ctx.root_visits.get(i).copied().unwrap_or(0))
                    .collect();
                if ctx.root_visits.len() != n {
                    counts.clone_from(&visits);
                }
                let most = counts.iter().copied().max().unwrap_or(0);
                let best =
                    gumbel_argmax(ctx.gumbel, &scratch.priors, &scratch.sigma, &counts, most)
                        .unwrap_or(0);
                improved_policy(&scratch.priors, &scratch.sigma, &mut scratch.policy);
                (best, scratch.policy.clone())
            }
        }
    };

    let children = edges
        .iter()
        .enumerate()
        .map(|(i, edge)| ChildStats {
            mv: *edge.mv(),
            prior: scratch.priors[i],
            visits: visits[i],
            wdl: edge
                .child()
                .map(|c| tree.node(c))
                .filter(|c| c.visits() > 0)
                .map(|c| c.wdl().flipped()),
        })
        .collect();
    let best_move = *edges[best].mv();
    let wdl = tree.node(root).wdl();
    SearchResult {
        best_move,
        policy: edges.iter().map(|e| *e.mv()).zip(policy).collect(),
        wdl,
        value: wdl.value(),
        principal_variation: principal_variation(tree, best),
        simulations,
        full_search,
        children,
        proof: Proof::Unknown,
    }
}

/// The chosen root move, then the most visited line below it (ties to the
/// better value).
pub(crate) fn principal_variation(tree: &Tree, first: usize) -> Vec<Move> {
    let mut pv = vec![*tree.edges(Tree::ROOT)[first].mv()];
    let mut node = tree.edges(Tree::ROOT)[first].child();
    while let Some(id) = node {
        if tree.node(id).state() != NodeState::Expanded {
            break;
        }
        let mut best: Option<(usize, u32, f32)> = None;
        for (i, edge) in tree.edges(id).iter().enumerate() {
            let Some(child) = edge.child().map(|c| tree.node(c)) else {
                continue;
            };
            let (v, q) = (child.visits(), child.q_from_parent(0.0));
            if v > 0 && best.is_none_or(|(_, bv, bq)| v > bv || (v == bv && q > bq)) {
                best = Some((i, v, q));
            }
        }
        let Some((i, _, _)) = best else { break };
        let edge = &tree.edges(id)[i];
        pv.push(*edge.mv());
        node = edge.child();
    }
    pv
}

/// Index of the largest value (first on ties).
fn argmax(values: &[f32]) -> usize {
    let mut best = 0;
    for (i, &v) in values.iter().enumerate() {
        if v > values[best] {
            best = i;
        }
    }
    best
}

/// A move by visit count: with temperature 0 the most visited (ties to the
/// higher Q, then uniformly at random); otherwise sampled with probability
/// proportional to `visits^(1/T)`.
pub fn choose_by_visits<R: Rng + ?Sized>(
    visits: &[u32],
    q: &[f32],
    temperature: f32,
    rng: &mut R,
) -> usize {
    let max = visits.iter().copied().max().unwrap_or(0);
    if temperature <= 1e-3 || max == 0 {
        let best_q = visits
            .iter()
            .zip(q)
            .filter(|&(&v, _)| v == max)
            .map(|(_, &q)| q)
            .fold(f32::NEG_INFINITY, f32::max);
        let tied = |i: &usize| visits[*i] == max && q[*i] == best_q;
        let count = (0..visits.len()).filter(tied).count();
        let pick = if count > 1 {
            rng.random_range(0..count)
        } else {
            0
        };
        return (0..visits.len()).filter(tied).nth(pick).unwrap_or(0);
    }
    // Normalise by the maximum first so 1/T powers cannot overflow.
    let inv_t = 1.0 / f64::from(temperature);
    let weight = |v: u32| (f64::from(v) / f64::from(max)).powf(inv_t);
    let sum: f64 = visits.iter().map(|&v| weight(v)).sum();
    let mut r = rng.random::<f64>() * sum;
    for (i, &v) in visits.iter().enumerate() {
        r -= weight(v);
        if r < 0.0 && v > 0 {
            return i;
        }
    }
    visits.iter().rposition(|&v| v > 0).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn temperature_zero_takes_the_most_visited() {
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        assert_eq!(
            choose_by_visits(&[3, 9, 2], &[0.0, 0.0, 0.9], 0.0, &mut rng),
            1
        );
        // Equal visits: the better Q.
        assert_eq!(
            choose_by_visits(&[5, 5, 2], &[0.1, 0.3, 0.9], 0.0, &mut rng),
            1
        );
    }

    #[test]
    fn exact_ties_are_broken_by_the_seed() {
        let picks = |seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            (0..20)
                .map(|_| choose_by_visits(&[4, 4, 4, 1], &[0.0; 4], 0.0, &mut rng))
                .collect::<Vec<_>>()
        };
        assert_eq!(picks(7), picks(7));
        let seen: std::collections::BTreeSet<usize> = picks(7).into_iter().collect();
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), vec![0, 1, 2]);
    }

    #[test]
    fn temperature_one_samples_in_proportion() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut counts = [0u32; 3];
        for _ in 0..4000 {
            counts[choose_by_visits(&[10, 30, 0], &[0.0; 3], 1.0, &mut rng)] += 1;
        }
        assert_eq!(counts[2], 0);
        let share = f64::from(counts[1]) / 4000.0;
        assert!((share - 0.75).abs() < 0.03, "{counts:?}");
    }
}
