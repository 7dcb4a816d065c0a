//! Run configurations on random and damaged TOML: loading never panics, an
//! error always names the file (and the parser's line or the key), and a
//! config that loads is valid and saves back to itself.

use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use shashki_train::RunConfig;
use std::path::{Path, PathBuf};

fn shipped(name: &str) -> String {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../configs")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

const ORIGIN: &str = "fuzz.toml";

fn check(text: &str) -> Result<(), TestCaseError> {
    match RunConfig::from_toml(text, Path::new(ORIGIN)) {
        Ok(config) => {
            prop_assert!(config.validate().is_ok());
            let again = RunConfig::from_toml(&config.to_toml(), Path::new(ORIGIN));
            prop_assert_eq!(again.ok(), Some(config));
        }
        Err(err) => {
            let message = err.to_string();
            prop_assert!(message.starts_with("config fuzz.toml: "), "{message}");
            prop_assert!(message.len() > "config fuzz.toml: ".len() + 5, "{message}");
        }
    }
    Ok(())
}

const SECTIONS: &[&str] = &[
    "run",
    "net",
    "search",
    "selfplay",
    "train",
    "gating",
    "draw_rules",
    "bogus",
];
const KEYS: &[&str] = &[
    "seed",
    "generations",
    "blocks",
    "channels",
    "full_simulations",
    "algorithm",
    "games_per_generation",
    "batch_size",
    "threads",
    "learning_rate",
    "momentum",
    "window",
    "min_samples",
    "max_reuse",
    "lr_decay_steps",
    "enabled",
    "method",
    "alpha",
    "max_plies",
    "repetition",
    "kings_only_plies",
    "resign_threshold",
    "temperature",
    "nonsense",
];
const VALUES: &[&str] = &[
    "0",
    "-1",
    "1",
    "3",
    "64",
    "1e30",
    "-1e30",
    "nan",
    "inf",
    "-inf",
    "0.5",
    "1.5",
    "99999999999999999999",
    "9223372036854775807",
    "\"gumbel\"",
    "\"puct\"",
    "\"sgd\"",
    "\"sprt\"",
    "\"x\"",
    "true",
    "false",
    "[]",
    "[1, 2]",
    "[-1]",
    "{}",
    "\"\"",
];

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        1 => prop::sample::select(SECTIONS).prop_map(|s| format!("[{s}]")),
        4 => (prop::sample::select(KEYS), prop::sample::select(VALUES))
            .prop_map(|(k, v)| format!("{k} = {v}")),
        1 => "[^\\n]{0,20}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2000,
        rng_seed: RngSeed::Fixed(0x434F_4E46_4947_5A31),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_config_lines_never_panic(lines in prop::collection::vec(line(), 0..12)) {
        check(&lines.join("\n"))?;
    }

    #[test]
    fn damaged_shipped_configs_never_panic(
        which in 0usize..3,
        edits in prop::collection::vec((0.0..1.0f64, 0u8..3, "[ -~]"), 1..5),
    ) {
        let mut text: Vec<char> = shipped(["cpu.toml", "gpu.toml", "smoke.toml"][which])
            .chars()
            .collect();
        for (at, kind, s) in edits {
            let i = ((at * text.len() as f64) as usize).min(text.len());
            let c = s.chars().next().unwrap();
            match kind {
                0 if i < text.len() => {
                    text.remove(i);
                }
                1 => text.insert(i, c),
                _ if i < text.len() => text[i] = c,
                _ => {}
            }
        }
        check(&text.into_iter().collect::<String>())?;
    }
}
