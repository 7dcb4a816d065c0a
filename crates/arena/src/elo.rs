//! Elo ratings by maximum likelihood over all games (Bradley-Terry with the
//! logistic curve, draws counted as half a win and half a loss, as Ordo
//! does), anchored to one player at a fixed Elo.
//!
//! Model: player `i` scores `E_ij = 1 / (1 + 10^((r_j - r_i) / 400))` on
//! average against `j`. With `N_ij` games and `S_ij` points, the
//! log-likelihood `sum S ln E + (N - S) ln (1 - E)` is maximized by Newton's
//! method (it is concave, so this converges from zero ratings).
//!
//! Perfect scores: every pair of players that met gets `prior_draws` virtual
//! drawn games (default 1, like a light BayesElo prior), so a player with
//! 100 % or 0 % gets a large but finite rating. Set it to 0 for the pure
//! maximum-likelihood fit (then perfect scores are an error).
//!
//! Error bars: quasi-binomial. Draws make a game's score less variable than
//! a win/loss coin flip, so the inverse Hessian of the binomial likelihood
//! is scaled by the dispersion `phi` = Pearson chi-square of the games /
//! (games - free parameters), floored at 0.05. The 95 % interval is
//! `+- 1.96 * sqrt(phi * (H^-1)_ii)`, relative to the anchor (whose own
//! interval is 0).

use crate::score::{Wdl, Z95};
use thiserror::Error;

/// Natural-log units per Elo point: `ln 10 / 400`.
const NATURAL_PER_ELO: f64 = std::f64::consts::LN_10 / 400.0;

/// Smallest dispersion used for the intervals (a field of all draws would
/// otherwise claim zero error).
const MIN_DISPERSION: f64 = 0.05;

/// Results of the games between two players, from `a`'s point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairResults {
    /// Index of the first player.
    pub a: usize,
    /// Index of the second player.
    pub b: usize,
    /// `a`'s wins, draws and losses against `b`.
    pub wdl: Wdl,
}

/// Settings of a fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitOptions {
    /// Index of the player whose rating is fixed.
    pub anchor: usize,
    /// The anchor's rating.
    pub anchor_elo: f64,
    /// Virtual draws added to every pair that played (see the module docs).
    pub prior_draws: f64,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            anchor: 0,
            anchor_elo: 0.0,
            prior_draws: 1.0,
        }
    }
}

/// The fitted ratings.
#[derive(Clone, Debug, PartialEq)]
pub struct EloFit {
    /// Rating of each player.
    pub elo: Vec<f64>,
    /// Half-width of each player's 95 % interval, relative to the anchor.
    pub ci95: Vec<f64>,
    /// The dispersion used for the intervals.
    pub dispersion: f64,
    /// Newton iterations taken.
    pub iterations: usize,
}

/// Why a fit failed.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum EloError {
    /// A player index is out of range or a player meets itself.
    #[error("bad results entry: {0}")]
    BadInput(String),
    /// Some players are not connected to the anchor by games.
    #[error("players {0:?} have no chain of games to the anchor, so their ratings are undefined")]
    Disconnected(Vec<usize>),
    /// The likelihood has no maximum (a perfect score with no prior).
    #[error("the fit diverged (a perfect score with prior_draws = 0?)")]
    Diverged,
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Games and points of one unordered pair, the prior included.
#[derive(Clone, Copy)]
struct Link {
    i: usize,
    j: usize,
    games: f64,
    points_i: f64,
}

/// Fits ratings for `players` players from `results`.
pub fn fit(players: usize, results: &[PairResults], opts: &FitOptions) -> Result<EloFit, EloError> {
    if opts.anchor >= players {
        return Err(EloError::BadInput(format!(
            "anchor {} but only {players} players",
            opts.anchor
        )));
    }
    if opts.prior_draws.is_nan() || opts.prior_draws < 0.0 || !opts.anchor_elo.is_finite() {
        return Err(EloError::BadInput(
            "prior_draws must be >= 0 and the anchor Elo finite".into(),
        ));
    }
    let links = links(players, results, opts.prior_draws)?;
    check_connected(players, &links, opts.anchor)?;

    // Free parameters: every player but the anchor.
    let index: Vec<Option<usize>> = (0..players)
        .map(|p| match p.cmp(&opts.anchor) {
            std::cmp::Ordering::Less => Some(p),
            std::cmp::Ordering::Equal => None,
            std::cmp::Ordering::Greater => Some(p - 1),
        })
        .collect();
    let free = players - 1;
    let (x, iterations) = maximize_likelihood(&links, &index, free)?;

    let (_, info) = gradient_and_information(&links, &x, &index, free);
    let inverse = invert(&info, free).ok_or(EloError::Diverged)?;
    let dispersion = dispersion(players, results, &x, free);
    let elo: Vec<f64> = x
        .iter()
        .map(|v| v / NATURAL_PER_ELO + opts.anchor_elo)
        .collect();
    let ci95 = (0..players)
        .map(|p| match index[p] {
            None => 0.0,
            Some(k) => Z95 * (dispersion * inverse[k * free + k]).max(0.0).sqrt() / NATURAL_PER_ELO,
        })
        .collect();
    Ok(EloFit {
        elo,
        ci95,
        dispersion,
        iterations,
    })
}

/// The results summed per unordered pair that played, each with
/// `prior_draws` virtual draws added.
fn links(players: usize, results: &[PairResults], prior_draws: f64) -> Result<Vec<Link>, EloError> {
    let mut table = vec![(0.0f64, 0.0f64); players * players];
    for r in results {
        if r.a >= players || r.b >= players || r.a == r.b {
            return Err(EloError::BadInput(format!(
                "pair ({}, {}) among {players} players",
                r.a, r.b
            )));
        }
        let (i, j, points) = if r.a < r.b {
            (r.a, r.b, r.wdl.points())
        } else {
            (r.b, r.a, r.wdl.flipped().points())
        };
        let cell = &mut table[i * players + j];
        cell.0 += r.wdl.games() as f64;
        cell.1 += points;
    }
    let mut links = Vec::new();
    for i in 0..players {
        for j in i + 1..players {
            let (games, points) = table[i * players + j];
            if games > 0.0 {
                links.push(Link {
                    i,
                    j,
                    games: games + prior_draws,
                    points_i: points + prior_draws / 2.0,
                });
            }
        }
    }
    Ok(links)
}

/// The ratings (natural units, the anchor at 0) of greatest likelihood, by
/// Newton iterations with step halving, and how many iterations it took.
fn maximize_likelihood(
    links: &[Link],
    index: &[Option<usize>],
    free: usize,
) -> Result<(Vec<f64>, usize), EloError> {
    let mut x = vec![0.0f64; index.len()];
    let mut iterations = 0;
    if free == 0 {
        return Ok((x, iterations));
    }
    let mut ll = log_likelihood(links, &x);
    // They end by `return` at convergence or by an error.
    loop {
        iterations += 1;
        if iterations > 200 {
            return Err(EloError::Diverged);
        }
        let (grad, info) = gradient_and_information(links, &x, index, free);
        let step = solve(&info, &grad, free).ok_or(EloError::Diverged)?;
        // Newton step with halving until the likelihood does not drop.
        let mut scale = 1.0;
        let mut next = x.clone();
        loop {
            for (p, k) in index.iter().enumerate() {
                if let Some(k) = k {
                    next[p] = x[p] + scale * step[*k];
                }
            }
            let next_ll = log_likelihood(links, &next);
            if next_ll >= ll - 1e-12 || scale < 1e-6 {
                ll = next_ll;
                break;
            }
            scale /= 2.0;
        }
        let change = step.iter().fold(0.0f64, |m, s| m.max((s * scale).abs()));
        x = next;
        if x.iter().any(|v| !v.is_finite() || v.abs() > 50.0) {
            return Err(EloError::Diverged);
        }
        if change < 1e-10 {
            return Ok((x, iterations));
        }
    }
}

/// Errors unless every player is linked to the anchor by a chain of games.
fn check_connected(players: usize, links: &[Link], anchor: usize) -> Result<(), EloError> {
    let mut seen = vec![false; players];
    seen[anchor] = true;
    let mut stack = vec![anchor];
    while let Some(p) = stack.pop() {
        for l in links {
            let other = if l.i == p {
                l.j
            } else if l.j == p {
                l.i
            } else {
                continue;
            };
            if !seen[other] {
                seen[other] = true;
                stack.push(other);
            }
        }
    }
    let missing: Vec<usize> = (0..players).filter(|&p| !seen[p]).collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(EloError::Disconnected(missing))
    }
}

fn log_likelihood(links: &[Link], x: &[f64]) -> f64 {
    links
        .iter()
        .map(|l| {
            let d = x[l.i] - x[l.j];
            // ln sigmoid(d) = -ln(1 + e^-d), computed stably.
            let ln_p = -softplus(-d);
            let ln_q = -softplus(d);
            l.points_i * ln_p + (l.games - l.points_i) * ln_q
        })
        .sum()
}

fn softplus(x: f64) -> f64 {
    if x > 30.0 { x } else { x.exp().ln_1p() }
}

/// Gradient of the log-likelihood and the observed information matrix
/// (minus the Hessian) over the free parameters.
fn gradient_and_information(
    links: &[Link],
    x: &[f64],
    index: &[Option<usize>],
    free: usize,
) -> (Vec<f64>, Vec<f64>) {
    let mut grad = vec![0.0; free];
    let mut info = vec![0.0; free * free];
    for l in links {
        let p = sigmoid(x[l.i] - x[l.j]);
        let g = l.points_i - l.games * p;
        let w = l.games * p * (1.0 - p);
        if let Some(a) = index[l.i] {
            grad[a] += g;
            info[a * free + a] += w;
        }
        if let Some(b) = index[l.j] {
            grad[b] -= g;
            info[b * free + b] += w;
        }
        if let (Some(a), Some(b)) = (index[l.i], index[l.j]) {
            info[a * free + b] -= w;
            info[b * free + a] -= w;
        }
    }
    (grad, info)
}

/// Quasi-binomial dispersion: Pearson chi-square of the real games (no
/// prior) over the residual degrees of freedom.
fn dispersion(players: usize, results: &[PairResults], x: &[f64], free: usize) -> f64 {
    let mut chi2 = 0.0;
    let mut games = 0.0;
    for r in results {
        if r.a >= players || r.b >= players {
            continue;
        }
        let e = sigmoid(x[r.a] - x[r.b]);
        let w = &r.wdl;
        let sq = w.wins as f64 * (1.0 - e).powi(2)
            + w.draws as f64 * (0.5 - e).powi(2)
            + w.losses as f64 * e * e;
        chi2 += sq / (e * (1.0 - e)).max(1e-12);
        games += w.games() as f64;
    }
    let dof = games - free as f64;
    if dof <= 0.0 {
        1.0
    } else {
        (chi2 / dof).max(MIN_DISPERSION)
    }
}

/// Solves `m * v = rhs` (m symmetric positive definite, n x n).
fn solve(m: &[f64], rhs: &[f64], n: usize) -> Option<Vec<f64>> {
    let inv = invert(m, n)?;
    Some(
        (0..n)
            .map(|r| (0..n).map(|c| inv[r * n + c] * rhs[c]).sum())
            .collect(),
    )
}

/// Gauss-Jordan inverse with partial pivoting; `None` if singular.
fn invert(m: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut a = m.to_vec();
    let mut inv = vec![0.0; n * n];
    for i in 0..n {
        inv[i * n + i] = 1.0;
    }
    for col in 0..n {
        let pivot =
            (col..n).max_by(|&r, &s| a[r * n + col].abs().total_cmp(&a[s * n + col].abs()))?;
        if a[pivot * n + col].abs() < 1e-300 {
            return None;
        }
        if pivot != col {
            for c in 0..n {
                a.swap(pivot * n + c, col * n + c);
                inv.swap(pivot * n + c, col * n + c);
            }
        }
        let d = a[col * n + col];
        for c in 0..n {
            a[col * n + c] /= d;
            inv[col * n + c] /= d;
        }
        for r in 0..n {
            if r != col {
                let f = a[r * n + col];
                if f != 0.0 {
                    for c in 0..n {
                        a[r * n + c] -= f * a[col * n + c];
                        inv[r * n + c] -= f * inv[col * n + c];
                    }
                }
            }
        }
    }
    Some(inv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::{expected_score, logistic_elo};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A simulated game for the first player at an Elo advantage `d`, with
    /// the draw rate highest between equals.
    fn game(rng: &mut ChaCha8Rng, d: f64) -> f64 {
        let s = expected_score(d);
        let draw = 1.2 * s * (1.0 - s);
        let u: f64 = rng.random();
        if u < s - draw / 2.0 {
            1.0
        } else if u < s + draw / 2.0 {
            0.5
        } else {
            0.0
        }
    }

    fn round_robin(rng: &mut ChaCha8Rng, truth: &[f64], games: usize) -> Vec<PairResults> {
        let mut out = Vec::new();
        for a in 0..truth.len() {
            for b in a + 1..truth.len() {
                let mut wdl = Wdl::default();
                for _ in 0..games {
                    wdl.add_points(game(rng, truth[a] - truth[b]));
                }
                out.push(PairResults { a, b, wdl });
            }
        }
        out
    }

    const TRUTH: [f64; 5] = [0.0, 100.0, 200.0, 350.0, -150.0];

    #[test]
    fn two_players_without_prior_give_the_score_elo() {
        let r = [PairResults {
            a: 1,
            b: 0,
            wdl: Wdl::new(30, 40, 10),
        }];
        let opts = FitOptions {
            anchor: 0,
            anchor_elo: 100.0,
            prior_draws: 0.0,
        };
        let f = fit(2, &r, &opts).unwrap();
        assert_eq!(f.elo[0], 100.0);
        assert!((f.elo[1] - 100.0 - logistic_elo(50.0 / 80.0)).abs() < 1e-6);
        assert_eq!(f.ci95[0], 0.0);
        assert!(f.ci95[1] > 10.0 && f.ci95[1] < 200.0);
    }

    #[test]
    fn recovers_known_ratings_within_error_bars() {
        let mut rng = ChaCha8Rng::seed_from_u64(42);
        let results = round_robin(&mut rng, &TRUTH, 400);
        let f = fit(5, &results, &FitOptions::default()).unwrap();
        for (p, truth) in TRUTH.iter().enumerate() {
            let err = (f.elo[p] - truth).abs();
            assert!(
                err <= f.ci95[p],
                "player {p}: {} +- {} vs {}",
                f.elo[p],
                f.ci95[p],
                TRUTH[p]
            );
        }
        assert!(f.ci95[3] < 60.0, "intervals are informative: {:?}", f.ci95);
    }

    #[test]
    fn intervals_cover_the_truth_95_percent_of_the_time() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut covered = 0;
        let mut total = 0;
        for _ in 0..200 {
            let results = round_robin(&mut rng, &TRUTH, 60);
            let f = fit(5, &results, &FitOptions::default()).unwrap();
            for (p, truth) in TRUTH.iter().enumerate().skip(1) {
                total += 1;
                if (f.elo[p] - truth).abs() <= f.ci95[p] {
                    covered += 1;
                }
            }
        }
        let coverage = covered as f64 / total as f64;
        assert!((0.92..=0.98).contains(&coverage), "coverage {coverage}");
    }

    #[test]
    fn perfect_scores_stay_finite_with_the_prior() {
        let results = [
            PairResults {
                a: 0,
                b: 1,
                wdl: Wdl::new(0, 0, 20),
            },
            PairResults {
                a: 1,
                b: 2,
                wdl: Wdl::new(10, 5, 5),
            },
        ];
        let f = fit(3, &results, &FitOptions::default()).unwrap();
        assert!(f.elo.iter().all(|e| e.is_finite()));
        assert!(f.elo[1] > 400.0, "{:?}", f.elo);
        assert!(f.elo[1] > f.elo[2]);
        let strict = FitOptions {
            prior_draws: 0.0,
            ..FitOptions::default()
        };
        assert_eq!(fit(3, &results, &strict), Err(EloError::Diverged));
    }

    #[test]
    fn disconnected_players_are_reported() {
        let results = [
            PairResults {
                a: 0,
                b: 1,
                wdl: Wdl::new(1, 1, 1),
            },
            PairResults {
                a: 2,
                b: 3,
                wdl: Wdl::new(1, 1, 1),
            },
        ];
        assert_eq!(
            fit(4, &results, &FitOptions::default()),
            Err(EloError::Disconnected(vec![2, 3]))
        );
        let bad = [PairResults {
            a: 0,
            b: 0,
            wdl: Wdl::new(1, 0, 0),
        }];
        assert!(matches!(
            fit(1, &bad, &FitOptions::default()),
            Err(EloError::BadInput(_))
        ));
    }

    #[test]
    fn the_anchor_moves_every_rating_equally() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let results = round_robin(&mut rng, &TRUTH, 30);
        let a = fit(5, &results, &FitOptions::default()).unwrap();
        let b = fit(
            5,
            &results,
            &FitOptions {
                anchor: 2,
                anchor_elo: 1000.0,
                prior_draws: 1.0,
            },
        )
        .unwrap();
        let shift = b.elo[0] - a.elo[0];
        for p in 0..5 {
            assert!((b.elo[p] - a.elo[p] - shift).abs() < 1e-6);
        }
        assert_eq!(b.elo[2], 1000.0);
    }
}
