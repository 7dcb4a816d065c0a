//! The table of player kinds: one module per kind gives its prefix, reads
//! its spec and makes its players; the spec parser, the list splitter
//! ([`crate::roster::split_spec_list`]) and the checkpoint wildcards
//! ([`crate::roster::expand_wildcards`]) all read [`KINDS`].
//!
//! | spec | player |
//! |---|---|
//! | `random` | uniform random legal moves ([`random`]) |
//! | `ab:depth=4`, `ab:movetime=100[,threads=2]`, `ab:nodes=20000` | the reference alpha-beta engine (default depth 4; `threads`: Lazy SMP, default 1) ([`ab`]) |
//! | `nnue:models/x@depth=6`, `@movetime=100[,threads=2]`, `@nodes=N` | alpha-beta with an NNUE model folder (or a training checkpoint) as its evaluation (default depth 4, one thread) ([`nnue`]) |
//! | `mcts:sims=64[,gumbel][,rollouts=2][,leaves=1]`, `mcts:movetime=1000[,threads=2]` | MCTS over random playouts (default 64 simulations, PUCT) ([`mcts`]) |
//! | `net:runs/a/ckpt-120@sims=64[,gumbel][,device=cpu][,batch=64]`, `net:models/cpu-2h@movetime=1000[,threads=2][,leaves=16]` | a network checkpoint (file) or exported model (folder) with MCTS ([`net`]) |
//! | `ext:"/path/engine --opt"[@movetime=100][,depth=N][,nodes=N][,timeout=5000]` | an external engine over the line protocol ([`ext`]) |
//!
//! A player's name (in tables, PDN and the ratings file) is its spec text.
//! A player with `movetime` (or any player in a match with a clock, `--tc`)
//! thinks for a time rather than a fixed amount of work.
//!
//! A new kind is a module here with its `KIND` entry in [`KINDS`], a
//! [`PlayerKind`] variant for its settings and an arm in `prepare` (which
//! makes the kind's [`PlayerMaker`] once per match).

pub mod ab;
pub mod ext;
pub mod mcts;
pub mod net;
pub mod nnue;
pub(crate) mod options;
pub mod random;

use crate::player::PlayerMaker;
use crate::spec::{PlayerKind, PlayerSpec, SpecError};
use std::str::FromStr;

/// One kind of player as written in a spec: `PREFIX` or `PREFIX:REST`.
#[derive(Clone, Copy, Debug)]
pub struct Kind {
    /// The spec's first word (`ab` in `ab:depth=4`).
    pub prefix: &'static str,
    /// Its form in messages (`nnue:PATH@...`).
    pub syntax: &'static str,
    /// A spec of this kind with several options (for help and tests).
    pub example: &'static str,
    /// The rest is `PATH[@options]` with a network's checkpoint or model:
    /// a `*` in the path's last component takes every matching file.
    pub takes_path: bool,
    /// Reads the text after `PREFIX:` (`None`: no colon) into the kind's
    /// settings; the error says what is wrong.
    parse: fn(Option<&str>) -> Result<PlayerKind, String>,
}

/// Every kind of player.
pub static KINDS: [Kind; 6] = [
    random::KIND,
    ab::KIND,
    nnue::KIND,
    mcts::KIND,
    net::KIND,
    ext::KIND,
];

/// The kind whose prefix is `prefix`.
pub fn kind(prefix: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.prefix == prefix)
}

/// The kind a spec names and the text after its `PREFIX:` (`None`
/// without a colon); `None` if no kind has that prefix.
pub fn split_kind(spec: &str) -> Option<(&'static Kind, Option<&str>)> {
    let (head, rest) = match spec.split_once(':') {
        Some((h, r)) => (h, Some(r)),
        None => (spec, None),
    };
    kind(head).map(|k| (k, rest))
}

impl FromStr for PlayerSpec {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<PlayerSpec, SpecError> {
        let spec = text.trim();
        let fail = |reason: String| SpecError {
            spec: spec.to_string(),
            reason,
        };
        let (kind, rest) = split_kind(spec).ok_or_else(|| {
            let known: Vec<&str> = KINDS.iter().map(|k| k.syntax).collect();
            fail(format!("unknown player (expected {})", known.join(", ")))
        })?;
        Ok(PlayerSpec {
            name: spec.to_string(),
            kind: (kind.parse)(rest).map_err(fail)?,
        })
    }
}

/// Prepares what the games of one match share for `spec` (a network is
/// loaded here, an external engine's handshake tried); the error says why
/// the player cannot play.
pub(crate) fn prepare(spec: &PlayerSpec) -> Result<Box<dyn PlayerMaker>, String> {
    Ok(match &spec.kind {
        PlayerKind::Random => Box::new(random::Maker),
        &PlayerKind::AlphaBeta { limits, threads } => Box::new(ab::Maker { limits, threads }),
        PlayerKind::Nnue {
            path,
            limits,
            threads,
        } => Box::new(nnue::Maker::load(path, &spec.name, *limits, *threads)?),
        &PlayerKind::Mcts { search, rollouts } => Box::new(mcts::Maker { search, rollouts }),
        PlayerKind::Net {
            path,
            search,
            device,
            kernels,
            batch,
        } => {
            let evaluator = crate::net::load_evaluator(path, device, *kernels)?;
            Box::new(net::Maker::new(evaluator, *search, *batch))
        }
        PlayerKind::External {
            command,
            limits,
            timeout,
        } => Box::new(ext::Maker::check(command, *limits, *timeout)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::ab::DEFAULT_AB_DEPTH;
    use crate::kinds::ext::DEFAULT_EXT_MOVETIME_MS;
    use shashki_search::{Algorithm, SearchLimits};
    use std::path::PathBuf;
    use std::time::Duration;

    fn parse(s: &str) -> PlayerKind {
        s.parse::<PlayerSpec>().unwrap().kind
    }

    #[test]
    fn parses_random_and_alpha_beta() {
        assert_eq!(parse("random"), PlayerKind::Random);
        assert_eq!(
            parse("ab:depth=4"),
            PlayerKind::AlphaBeta {
                limits: SearchLimits::depth(4),
                threads: 1
            }
        );
        assert_eq!(
            parse("ab:movetime=100,threads=2"),
            PlayerKind::AlphaBeta {
                limits: SearchLimits::movetime(Duration::from_millis(100)),
                threads: 2
            }
        );
        assert_eq!(
            parse("ab"),
            PlayerKind::AlphaBeta {
                limits: SearchLimits::depth(DEFAULT_AB_DEPTH),
                threads: 1
            }
        );
    }

    #[test]
    fn parses_nnue() {
        assert_eq!(
            parse("nnue:models/x@depth=6,threads=4"),
            PlayerKind::Nnue {
                path: PathBuf::from("models/x"),
                limits: SearchLimits::depth(6),
                threads: 4
            }
        );
        assert_eq!(
            parse("nnue:\"my models/x\""),
            PlayerKind::Nnue {
                path: PathBuf::from("my models/x"),
                limits: SearchLimits::depth(DEFAULT_AB_DEPTH),
                threads: 1
            }
        );
        assert!(
            "nnue:models/x@sims=3"
                .parse::<PlayerSpec>()
                .unwrap_err()
                .to_string()
                .contains("unknown nnue option")
        );
        assert!("nnue:".parse::<PlayerSpec>().is_err());
    }

    #[test]
    fn parses_mcts_and_net() {
        match parse("mcts:sims=32,gumbel,rollouts=3") {
            PlayerKind::Mcts { search, rollouts } => {
                assert_eq!(
                    (search.simulations, search.algorithm, rollouts),
                    (32, Algorithm::Gumbel, 3)
                );
            }
            other => panic!("{other:?}"),
        }
        match parse("net:runs/a/ckpt-120@sims=64") {
            PlayerKind::Net {
                path,
                search,
                device,
                ..
            } => {
                assert_eq!(path, PathBuf::from("runs/a/ckpt-120"));
                assert_eq!(
                    (search.simulations, search.algorithm),
                    (64, Algorithm::Puct)
                );
                assert_eq!(device, "cpu");
            }
            other => panic!("{other:?}"),
        }
        match parse("net:models/NAME@sims=64") {
            PlayerKind::Net { kernels, .. } => {
                assert_eq!(kernels, shashki_net::InferenceKernels::PLAY, "play default");
            }
            other => panic!("{other:?}"),
        }
        match parse("net:models/NAME@sims=64,kernels=f32") {
            PlayerKind::Net { kernels, .. } => {
                assert_eq!(kernels, shashki_net::InferenceKernels::F32);
            }
            other => panic!("{other:?}"),
        }
        match parse("net:models/NAME@movetime=1000,cache=0,evaluate_forced") {
            PlayerKind::Net { search, .. } => {
                assert_eq!(
                    (search.cache_entries, search.evaluate_forced),
                    (Some(0), true)
                );
            }
            other => panic!("{other:?}"),
        }
        match parse("net:models/NAME@movetime=1000") {
            PlayerKind::Net { search, .. } => {
                assert_eq!(
                    (search.cache_entries, search.evaluate_forced),
                    (None, false)
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(
            "net:models/NAME@kernels=fast"
                .parse::<PlayerSpec>()
                .is_err()
        );
        match parse("net:models/NAME@sims=64,gumbel") {
            PlayerKind::Net { path, search, .. } => {
                assert_eq!(path, PathBuf::from("models/NAME"));
                assert_eq!(search.algorithm, Algorithm::Gumbel);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn parses_external() {
        match parse("ext:\"/path/engine --opt 'a b'\"@movetime=100,timeout=900") {
            PlayerKind::External {
                command,
                limits,
                timeout,
            } => {
                assert_eq!(command, vec!["/path/engine", "--opt", "a b"]);
                assert_eq!(limits.movetime, Some(Duration::from_millis(100)));
                assert_eq!(timeout, Duration::from_millis(900));
            }
            other => panic!("{other:?}"),
        }
        match parse("ext:/bin/eng") {
            PlayerKind::External {
                command, limits, ..
            } => {
                assert_eq!(command, vec!["/bin/eng"]);
                assert_eq!(
                    limits.movetime,
                    Some(Duration::from_millis(DEFAULT_EXT_MOVETIME_MS))
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bad_specs_say_why() {
        for bad in [
            "",
            "rand",
            "ab:depth=x",
            "ab:speed=3",
            "net:",
            "ext:",
            "ext:\"x",
            "mcts:sims",
            "random:1",
        ] {
            let e = bad.parse::<PlayerSpec>().unwrap_err();
            assert!(!e.reason.is_empty(), "{bad}");
        }
    }
}
