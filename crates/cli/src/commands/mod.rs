//! One module per subcommand.

pub mod analyse;
pub mod bench_search;
pub mod book;
pub mod check_onnx;
pub mod engine;
pub mod eval;
pub mod export;
pub mod hub;
pub mod import;
pub mod learn;
pub mod match_cmd;
pub mod moves;
pub mod nnue_diagnose;
pub mod nnue_init;
pub mod nnue_widen;
pub mod pdn;
pub mod perft;
pub mod play;
pub mod rate;
pub mod relabel;
pub mod samples;
pub mod selfplay;
pub mod serve;
pub mod tactics;
pub mod tb;
pub mod train;
