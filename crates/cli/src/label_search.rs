//! The options of a labelling search, shared by `nnue-diagnose make-set`
//! and `relabel`: which evaluation, which tables, how many at once.

use crate::engine_choice::load_tablebases;
use anyhow::{Context, Result};
use shashki_nnue::load_engine_net;
use shashki_search::alphabeta::{EvalWeights, HandEval, StaticEval};
use shashki_search::tablebase::Tablebases;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `--eval`, `--tablebase`, `--threads`.
#[derive(clap::Args, Debug)]
pub struct LabelSearchArgs {
    /// Evaluation of the labelling search: `hand`, or an NNUE model folder
    /// or checkpoint file.
    #[arg(long, default_value = "hand")]
    pub eval: String,
    /// Tablebase folder: positions it covers get their exact value.
    #[arg(long)]
    pub tablebase: Option<PathBuf>,
    /// Positions searched at once (one single-threaded search each).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
}

impl LabelSearchArgs {
    /// The evaluation `--eval` names.
    pub fn eval(&self) -> Result<Box<dyn StaticEval>> {
        labelling_eval(&self.eval)
    }

    /// The tables of `--tablebase`, for games under the official rules.
    pub fn tables(&self) -> Result<Option<Arc<Tablebases>>> {
        load_tablebases(self.tablebase.as_deref())
    }
}

/// The evaluation `--eval SPEC` names: `hand`, or an NNUE model folder
/// or checkpoint file.
pub fn labelling_eval(spec: &str) -> Result<Box<dyn StaticEval>> {
    if spec == "hand" {
        return Ok(Box::new(HandEval::new(&EvalWeights::default())));
    }
    let net = load_engine_net(Path::new(spec)).with_context(|| format!("--eval {spec}"))?;
    Ok(Box::new(shashki_nnue::NnueEval::new(
        Arc::new(net),
        format!("nnue {spec}"),
    )))
}
