//! The registry of engine and player kinds: one module per kind gives its
//! prefix, options and syntax, reads its spec, makes its players for
//! matches and, where it can, a standalone [`Engine`] for `analyse`,
//! `play`, `engine`, `hub` and the web board. The spec parser, the list
//! splitter ([`crate::roster::split_spec_list`]), the checkpoint wildcards
//! ([`crate::roster::expand_wildcards`]), the binary's `--engine` options
//! and `shashki serve` all read [`KINDS`].
//!
//! | spec | player |
//! |---|---|
//! | `random` | uniform random legal moves ([`random`]) |
//! | `ab:depth=4`, `ab:movetime=100[,threads=2]`, `ab:nodes=20000` | the reference alpha-beta engine (default depth 4; `threads`: Lazy SMP, default 1) ([`ab`]) |
//! | `builtin[:depth=6]`, `builtin:movetime=100[,threads=2]` | alpha-beta with the shipped NNUE built into the binary (options as `ab`) ([`builtin`]) |
//! | `nnue:models/x@depth=6`, `@movetime=100[,threads=2]`, `@nodes=N` | alpha-beta with an NNUE model folder (or a training checkpoint) as its evaluation (default depth 4, one thread) ([`nnue`]) |
//! | `mcts:sims=64[,gumbel][,rollouts=2][,leaves=1]`, `mcts:movetime=1000[,threads=2]` | MCTS over random playouts (default 64 simulations, PUCT) ([`mcts`]) |
//! | `net:runs/a/ckpt-120@sims=64[,gumbel][,device=cpu][,batch=64]`, `net:models/cpu-2h@movetime=1000[,threads=2][,leaves=16]` | a network checkpoint (file) or exported model (folder) with MCTS ([`net`]) |
//! | `ext:"/path/engine --opt"[@movetime=100][,depth=N][,nodes=N][,timeout=5000]` | an external engine over the line protocol ([`ext`]) |
//!
//! A player's name (in tables, PDN and the ratings file) is its spec text.
//! A player with `movetime` (or any player in a match with a clock, `--tc`)
//! thinks for a time rather than a fixed amount of work. As a standalone
//! engine the limits a spec states are the defaults of `analyse` and
//! `play`; `random` and `ext:` play in matches only.
//!
//! A new kind is a module here with its `KIND` entry in [`KINDS`], a
//! [`PlayerKind`] variant for its settings, an arm in `prepare` (which
//! makes the kind's [`PlayerMaker`] once per match) and, if it can be a
//! standalone engine, an arm in [`build_engine`].

pub mod ab;
pub mod builtin;
pub mod ext;
pub mod mcts;
pub mod net;
pub mod nnue;
pub(crate) mod options;
pub mod random;

use crate::player::PlayerMaker;
use crate::spec::{PlayerKind, PlayerSpec, SpecError};
use shashki_search::Engine;
use shashki_search::tablebase::Tablebases;
use std::str::FromStr;
use std::sync::Arc;

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
    /// The option keys the kind reads (`key=value` or flags).
    pub options: &'static [&'static str],
    /// Reads the text after `PREFIX:` (`None`: no colon) into the kind's
    /// settings; the error says what is wrong.
    parse: fn(Option<&str>) -> Result<PlayerKind, String>,
}

/// Every kind of player.
pub static KINDS: [Kind; 7] = [
    random::KIND,
    ab::KIND,
    builtin::KIND,
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

/// The error for an option `key` that kind `prefix` does not read.
pub(crate) fn unknown_option(prefix: &str, key: &str, options: &[&str]) -> String {
    format!("unknown {prefix} option {key:?} ({})", options.join(", "))
}

/// Every kind's syntax, for help and errors: `random, ab:..., ...`.
pub fn syntaxes() -> String {
    KINDS
        .iter()
        .map(|k| k.syntax)
        .collect::<Vec<_>>()
        .join(", ")
}

impl FromStr for PlayerSpec {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<PlayerSpec, SpecError> {
        let spec = text.trim();
        let fail = |reason: String| SpecError {
            spec: spec.to_string(),
            reason,
        };
        let (kind, rest) = split_kind(spec)
            .ok_or_else(|| fail(format!("unknown player (expected {})", syntaxes())))?;
        Ok(PlayerSpec {
            name: spec.to_string(),
            kind: (kind.parse)(rest).map_err(fail)?,
        })
    }
}

/// `spec` with `extra` options (`key=value` or flags) appended in its own
/// syntax (after `:` or `@`), keeping only those its kind reads; the
/// spec as it was when none applies. How the binary's older `--threads`,
/// `--batch`, ... flags become options of the one spec.
pub fn with_options(spec: &str, extra: &[String]) -> String {
    let spec = spec.trim();
    let Some((kind, rest)) = split_kind(spec) else {
        return spec.to_string();
    };
    let applies = |option: &&String| {
        let key = option.split('=').next().unwrap_or("");
        kind.options.contains(&key)
    };
    let extra: Vec<&str> = extra.iter().filter(applies).map(String::as_str).collect();
    if extra.is_empty() {
        return spec.to_string();
    }
    let joined = extra.join(",");
    let has_options = match rest {
        None => false,
        Some(rest) if kind.takes_path => options::path_and_options(rest).1.is_some(),
        Some(rest) => !rest.trim().is_empty(),
    };
    match (rest, has_options) {
        (_, true) => format!("{spec},{joined}"),
        (Some(_), false) if kind.takes_path => format!("{spec}@{joined}"),
        (Some(rest), false) if rest.trim().is_empty() => format!("{spec}{joined}"),
        _ => format!("{spec}:{joined}"),
    }
}

/// What a standalone engine is built with beside its spec.
#[derive(Clone, Debug, Default)]
pub struct EngineSetup {
    /// Seed of the engine's random choices (MCTS).
    pub seed: u64,
    /// Tables the search probes.
    pub tablebases: Option<Arc<Tablebases>>,
}

/// True if `kind` can be a standalone engine (not `random`, not `ext:`).
pub fn builds_engine(kind: &PlayerKind) -> bool {
    !matches!(kind, PlayerKind::Random | PlayerKind::External { .. })
}

/// The standalone engine of `spec` (its stated limits are the caller's to
/// apply, see [`PlayerKind::stated_limits`]); the error names the spec.
pub fn build_engine(spec: &PlayerSpec, setup: &EngineSetup) -> Result<Box<dyn Engine>, SpecError> {
    let fail = |reason: String| SpecError {
        spec: spec.name.clone(),
        reason,
    };
    match &spec.kind {
        &PlayerKind::AlphaBeta { search, .. } => Ok(ab::engine(search, None, setup)),
        &PlayerKind::Builtin { search, .. } => builtin::engine(search, setup),
        PlayerKind::Nnue { path, search, .. } => nnue::engine(path, *search, setup),
        PlayerKind::Mcts { search, rollouts } => mcts::engine(search, *rollouts, setup),
        PlayerKind::Net {
            path,
            search,
            device,
            kernels,
            ..
        } => net::engine(path, search, device, *kernels, setup),
        PlayerKind::Random | PlayerKind::External { .. } => Err(
            "plays in matches only (rate, match, the board's opponents); an engine that \
             analyses is builtin, ab, nnue:PATH, mcts or net:PATH"
                .to_string(),
        ),
    }
    .map_err(fail)
}

/// Prepares what the games of one match share for `spec` (a network is
/// loaded here, an external engine's handshake tried); the error says why
/// the player cannot play.
pub(crate) fn prepare(spec: &PlayerSpec) -> Result<Box<dyn PlayerMaker>, String> {
    Ok(match &spec.kind {
        PlayerKind::Random => Box::new(random::Maker),
        &PlayerKind::AlphaBeta { limits, search } => Box::new(ab::Maker { limits, search }),
        &PlayerKind::Builtin { limits, search } => {
            let net = builtin::builtin_net().map_err(|e| e.to_string())?;
            Box::new(nnue::Maker::new(Arc::new(net), &spec.name, limits, search))
        }
        PlayerKind::Nnue {
            path,
            limits,
            search,
        } => Box::new(nnue::Maker::load(path, &spec.name, *limits, *search)?),
        &PlayerKind::Mcts { search, rollouts } => Box::new(mcts::Maker { search, rollouts }),
        PlayerKind::Net {
            path,
            search,
            device,
            kernels,
            batch,
        } => {
            let evaluator = crate::load_network::load_evaluator(path, device, *kernels)?;
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
    use crate::kinds::ext::DEFAULT_EXT_MOVETIME_MS;
    use crate::spec::AbSearch;
    use shashki_search::{Algorithm, SearchLimits};
    use std::path::PathBuf;
    use std::time::Duration;

    fn parse(s: &str) -> PlayerKind {
        s.parse::<PlayerSpec>().unwrap().kind
    }

    #[test]
    fn a_game_clock_replaces_the_default_depth_and_keeps_a_stated_one() {
        use crate::player::EnginePlayer;
        let second = (Duration::from_secs(3), Duration::from_millis(30));
        let clock = SearchLimits::clock(second, second);
        for (spec, depth) in [
            ("ab", None),
            ("ab:depth=6", Some(6)),
            ("ab:nodes=500", None),
        ] {
            let PlayerKind::AlphaBeta { limits, search } = parse(spec) else {
                panic!("{spec} is an alpha-beta player");
            };
            let player = EnginePlayer::alpha_beta(limits, search, None, None);
            let on_clock = player.limits_on_clock(&clock);
            assert_eq!(on_clock.depth, depth, "{spec}");
            assert_eq!(on_clock.wtime, Some(second.0), "{spec}");
        }
        let PlayerKind::AlphaBeta { limits, .. } = parse("ab") else {
            unreachable!()
        };
        assert_eq!(
            ab::player_limits(limits),
            SearchLimits::depth(ab::DEFAULT_AB_DEPTH)
        );
    }

    #[test]
    fn parses_random_and_alpha_beta() {
        assert_eq!(parse("random"), PlayerKind::Random);
        assert_eq!(
            parse("ab:depth=4"),
            PlayerKind::AlphaBeta {
                limits: SearchLimits::depth(4),
                search: AbSearch::threads(1)
            }
        );
        assert_eq!(
            parse("ab:movetime=100,threads=2"),
            PlayerKind::AlphaBeta {
                limits: SearchLimits::movetime(Duration::from_millis(100)),
                search: AbSearch::threads(2)
            }
        );
        assert_eq!(
            parse("ab"),
            PlayerKind::AlphaBeta {
                limits: SearchLimits::default(),
                search: AbSearch::threads(1)
            },
            "limits as stated: a player applies its default depth"
        );
        assert_eq!(
            parse("builtin:movetime=100,threads=2"),
            PlayerKind::Builtin {
                limits: SearchLimits::movetime(Duration::from_millis(100)),
                search: AbSearch::threads(2)
            }
        );
    }

    #[test]
    fn alpha_beta_players_take_their_selectivity_and_time_use() {
        use shashki_search::alphabeta::{Selectivity, TimeUse};
        let PlayerKind::Nnue { search, .. } =
            parse("nnue:m@movetime=100,sel=prune+lmr,tm=adaptive")
        else {
            panic!("an nnue player");
        };
        assert_eq!(search.selectivity, Selectivity::parse("prune+lmr").unwrap());
        assert_eq!(search.time_use, TimeUse::Adaptive);
        let PlayerKind::Builtin { search, .. } = parse("builtin:sel=none") else {
            panic!("the built-in player");
        };
        assert_eq!(search.selectivity, Selectivity::NONE);
        let err = "ab:sel=prune+nullmove".parse::<PlayerSpec>().unwrap_err();
        assert!(err.to_string().contains("nullmove"), "{err}");
    }

    #[test]
    fn older_flags_become_options_of_the_spec() {
        let extra = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let t2 = extra(&["threads=2", "leaves=8"]);
        assert_eq!(with_options("builtin", &t2), "builtin:threads=2");
        assert_eq!(with_options("ab:depth=3", &t2), "ab:depth=3,threads=2");
        assert_eq!(with_options("nnue:m/x", &t2), "nnue:m/x@threads=2");
        assert_eq!(
            with_options("net:m/x@sims=4", &t2),
            "net:m/x@sims=4,threads=2,leaves=8"
        );
        assert_eq!(with_options("mcts", &t2), "mcts:threads=2,leaves=8");
        assert_eq!(with_options("random", &t2), "random");
        assert_eq!(
            with_options("net:m/x", &extra(&["evaluate_forced"])),
            "net:m/x@evaluate_forced"
        );
        for spec in [
            "builtin:threads=2",
            "ab:depth=3,threads=2",
            "net:m/x@sims=4,threads=2,leaves=8",
        ] {
            assert!(spec.parse::<PlayerSpec>().is_ok(), "{spec}");
        }
    }

    #[test]
    fn the_builtin_model_plays_in_matches() {
        let factory = crate::PlayerFactory::from_text("builtin:depth=2").unwrap();
        let setup = crate::GameSetup {
            seed: 1,
            clocked: false,
            tablebases: None,
        };
        let mut player = factory.create_for_game(&setup).unwrap();
        let game = shashki_rules::Game::new(shashki_rules::Position::startpos());
        let mv = player.choose_move(&game).unwrap();
        assert!(game.legal_moves().iter().any(|m| *m == mv));
    }

    #[test]
    fn engines_are_built_from_the_same_specs() {
        let setup = EngineSetup::default();
        let build = |s: &str| build_engine(&s.parse().unwrap(), &setup);
        let ab = build("ab:threads=2").unwrap();
        assert_eq!(ab.description(), "alpha-beta (hand evaluation, 2 threads)");
        let builtin = build("builtin").unwrap();
        assert!(
            builtin
                .description()
                .contains("built-in nnue models/nnue-data-2h")
        );
        assert_eq!(
            build("mcts").unwrap().description(),
            "mcts (random rollouts)"
        );
        for only_matches in ["random", "ext:/bin/true"] {
            let e = build(only_matches).err().unwrap();
            assert!(e.reason.contains("matches only"), "{e}");
            assert!(!builds_engine(
                &only_matches.parse::<PlayerSpec>().unwrap().kind
            ));
        }
        assert!(build("nnue:/no/such/model").is_err());
    }

    #[test]
    fn parses_nnue() {
        assert_eq!(
            parse("nnue:models/x@depth=6,threads=4"),
            PlayerKind::Nnue {
                path: PathBuf::from("models/x"),
                limits: SearchLimits::depth(6),
                search: AbSearch::threads(4)
            }
        );
        assert_eq!(
            parse("nnue:\"my models/x\""),
            PlayerKind::Nnue {
                path: PathBuf::from("my models/x"),
                limits: SearchLimits::default(),
                search: AbSearch::threads(1)
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
                    (Some(32), Algorithm::Gumbel, 3)
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
                    (Some(64), Algorithm::Puct)
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
