//! How a concurrent run shares the machine's cores between self-play, the
//! learner and the evaluator: settled once when the run opens
//! ([`crate::OpenRun::cores`]) and read by the banner, the evaluator and
//! the run alike.

use crate::config::RunConfig;

/// The threads of each side of a concurrent run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoreSplit {
    /// The learner's pool.
    pub learner: usize,
    /// Self-play's workers.
    pub selfplay: usize,
    /// The evaluator's games at once (0: no evaluator).
    pub evaluator: usize,
}

/// The threads of each side on a machine of `cores` cores: `[run]
/// learner_threads`, `[evaluator] threads` and `[selfplay] threads` where
/// set, otherwise half the cores for the learner (at least one), a quarter
/// for the evaluator when it is on (at least one) and the rest for
/// self-play (at least one). The learner gets half because on the CPU its
/// steps, not self-play, bound a sequential run (docs/RESULTS.md, "The
/// proof by play"); self-play scales with cores, a step much less.
pub fn core_split(config: &RunConfig, cores: usize) -> CoreSplit {
    let learner = match config.run.learner_threads {
        0 => (cores / 2).max(1),
        n => n,
    };
    let evaluator = config.evaluator.threads_on(cores);
    let selfplay = match config.selfplay.threads {
        0 => cores.saturating_sub(learner + evaluator).max(1),
        n => n,
    };
    CoreSplit {
        learner,
        selfplay,
        evaluator,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(learner_threads: usize, selfplay_threads: usize) -> RunConfig {
        let mut config = RunConfig::default();
        config.run.learner_threads = learner_threads;
        config.selfplay.threads = selfplay_threads;
        config.evaluator.enabled = false;
        config
    }

    #[test]
    fn cores_split_in_halves_unless_configured() {
        let split = |l, s, cores| {
            let c = core_split(&config(l, s), cores);
            (c.learner, c.selfplay)
        };
        assert_eq!(split(0, 0, 2), (1, 1));
        assert_eq!(split(0, 0, 1), (1, 1));
        assert_eq!(split(0, 0, 16), (8, 8));
        assert_eq!(split(0, 0, 7), (3, 4));
        assert_eq!(split(2, 0, 16), (2, 14));
        assert_eq!(split(0, 3, 16), (8, 3));
        assert_eq!(split(4, 4, 2), (4, 4));
    }

    #[test]
    fn the_evaluator_takes_a_quarter_of_the_cores_from_self_play() {
        let split = |threads, cores| {
            let mut c = config(0, 0);
            c.evaluator.enabled = true;
            c.evaluator.threads = threads;
            let s = core_split(&c, cores);
            (s.learner, s.selfplay, s.evaluator)
        };
        assert_eq!(split(0, 16), (8, 4, 4));
        assert_eq!(split(0, 2), (1, 1, 1), "at least one each, shared");
        assert_eq!(split(0, 7), (3, 3, 1));
        assert_eq!(split(2, 16), (8, 6, 2));
    }
}
