//! `shashki eval`: the network's W/D/L and policy for one position.
//!
//! `--json` prints `{"wdl": [w, d, l], "policy": {"c3-d4": p, ...}}` with
//! the moves sorted by probability (ties by notation), the same as
//! `scripts/reference_forward.py`. `--positions FILE` evaluates many
//! positions in one run, one such JSON line each (what the ONNX test
//! compares ONNX Runtime with).

use anyhow::{Context, Result};
use shashki_net::{Checkpoint, NetEvaluator, device_from_name, import_model};
use shashki_rules::{DrawCounters, DrawRules, DrawState, Position};
use shashki_search::tablebase::{self, MAX_TABLEBASE_PIECES, Tablebases, TbWdl};
use shashki_search::{EvalRequest, Evaluation};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Options of `shashki eval`.
#[derive(clap::Args)]
pub struct Args {
    /// Exported model folder (`model.json` + `model.safetensors`).
    #[arg(long, conflicts_with = "checkpoint")]
    model: Option<PathBuf>,
    /// Checkpoint file.
    #[arg(long)]
    checkpoint: Option<PathBuf>,
    /// The position (PDN FEN).
    #[arg(
        long,
        required_unless_present = "positions",
        conflicts_with = "positions"
    )]
    fen: Option<String>,
    /// Evaluate many positions: a file of JSON lines
    /// `{"fen": FEN, "repetitions": N, "plies_to_draw": N}` (the counters
    /// optional); prints one `--json` line per position.
    #[arg(long, value_name = "FILE", conflicts_with = "tablebase")]
    positions: Option<PathBuf>,
    /// How many times the position has occurred (draw-rule input).
    #[arg(long, default_value_t = 1)]
    repetitions: u8,
    /// Half-moves until a running counting rule declares a draw.
    #[arg(long)]
    plies_to_draw: Option<u16>,
    /// Compute device: cpu, or wgpu / wgpu:N in builds with the wgpu feature.
    #[arg(long, default_value = "cpu")]
    device: String,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Endgame tablebase folder: also print the tables' exact verdict for
    /// the position (JSON: a `"tablebase"` field) when it is in them.
    #[arg(long, value_name = "DIR")]
    tablebase: Option<PathBuf>,
}

/// The tables' verdict on `position` (side to move's view) under the draw
/// state given: `(wdl, dtz)`, the distance when the counters are fresh
/// (with `--plies-to-draw` only the result is exact, see TABLEBASES.md).
fn tablebase_verdict(
    tb: &Tablebases,
    position: &Position,
    state: &DrawState,
) -> Option<(TbWdl, Option<u32>)> {
    if state.plies_to_draw.is_some() {
        return tb.probe_draw_state(position, state).map(|wdl| (wdl, None));
    }
    let probe = tb.probe(position, &DrawCounters::start(position))?;
    Some((probe.wdl, probe.dtz))
}

fn wdl_word(wdl: TbWdl) -> &'static str {
    match wdl {
        TbWdl::Win => "win",
        TbWdl::Draw => "draw",
        TbWdl::Loss => "loss",
    }
}

/// Runs `shashki eval`.
pub fn run(args: Args) -> Result<()> {
    let checkpoint = match (&args.model, &args.checkpoint) {
        (Some(dir), _) => import_model(dir)?,
        (None, Some(file)) => Checkpoint::load(file)?,
        (None, None) => anyhow::bail!(
            "no network given: use --model DIR (an exported model folder) or --checkpoint FILE"
        ),
    };
    let device = device_from_name(&args.device)?;
    let evaluator = NetEvaluator::new(checkpoint.inference_net(&device)?, 1);
    if let Some(file) = &args.positions {
        return eval_file(&evaluator, file);
    }
    let fen = args
        .fen
        .as_deref()
        .expect("clap requires --fen or --positions");
    let position = Position::from_fen(fen).context("--fen")?;
    let draw_state = DrawState {
        repetitions: args.repetitions,
        plies_to_draw: args.plies_to_draw,
    };
    let verdict = match &args.tablebase {
        Some(dir) => {
            let tb = tablebase::load(dir, DrawRules::default(), MAX_TABLEBASE_PIECES)
                .map_err(|e| anyhow::anyhow!("--tablebase {e}"))?;
            Some(tablebase_verdict(&tb, &position, &draw_state))
        }
        None => None,
    };
    let (eval, policy) = evaluate(&evaluator, &position, draw_state)?;
    let wdl = eval.wdl;
    if args.json {
        let tablebase = match verdict {
            None => String::new(),
            Some(None) => ", \"tablebase\": null".to_string(),
            Some(Some((wdl, dtz))) => format!(
                ", \"tablebase\": {{\"wdl\": \"{}\", \"dtz\": {}}}",
                wdl_word(wdl),
                dtz.map_or("null".to_string(), |d| d.to_string())
            ),
        };
        println!("{}", json_line(&eval, &policy, &tablebase));
        return Ok(());
    }
    println!("{position}");
    println!(
        "W/D/L ({} to move): {:.4} {:.4} {:.4}   value {:+.4}",
        position.side_to_move(),
        wdl.win,
        wdl.draw,
        wdl.loss,
        wdl.value()
    );
    if let Some(plies) = eval.plies_left {
        println!("plies left: {plies:.1}");
    }
    match verdict {
        None => {}
        Some(None) => println!("tablebase: not in the tables"),
        Some(Some((wdl, dtz))) => println!(
            "tablebase: {} for {} to move{}",
            wdl_word(wdl),
            position.side_to_move(),
            dtz.map_or(String::new(), |d| format!(
                ", {d} half-moves to the next capture, promotion or end"
            ))
        ),
    }
    if policy.is_empty() {
        println!("no legal move: the side to move loses");
    }
    for (mv, p) in &policy {
        println!("{mv:<16} {p:.4}");
    }
    Ok(())
}

/// One position of a `--positions` file.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PositionLine {
    fen: String,
    #[serde(default = "one")]
    repetitions: u8,
    #[serde(default)]
    plies_to_draw: Option<u16>,
}

fn one() -> u8 {
    1
}

/// Prints the JSON line of each position of `file` (errors name the line).
fn eval_file(evaluator: &NetEvaluator, file: &Path) -> Result<()> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("--positions {}", file.display()))?;
    let mut out = std::io::stdout().lock();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let at = || format!("--positions {} line {}", file.display(), i + 1);
        let entry: PositionLine = serde_json::from_str(line).with_context(at)?;
        let position = Position::from_fen(&entry.fen).with_context(at)?;
        let draw_state = DrawState {
            repetitions: entry.repetitions,
            plies_to_draw: entry.plies_to_draw,
        };
        let (eval, policy) = evaluate(evaluator, &position, draw_state)?;
        writeln!(out, "{}", json_line(&eval, &policy, ""))?;
    }
    Ok(())
}

/// The network's evaluation of `position` and its moves' priors, most
/// probable first (ties by notation).
fn evaluate(
    evaluator: &NetEvaluator,
    position: &Position,
    draw_state: DrawState,
) -> Result<(Evaluation, Vec<(String, f32)>)> {
    let moves = position.legal_moves();
    let request = EvalRequest {
        position,
        draw_state,
        moves: moves.as_slice(),
    };
    let mut out = [Evaluation::default()];
    evaluator.try_evaluate(&[request], &mut out)?;
    let [eval] = out;
    let mut policy: Vec<(String, f32)> = moves
        .iter()
        .map(|m| m.to_string())
        .zip(eval.priors.iter().copied())
        .collect();
    policy.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok((eval, policy))
}

/// `{"wdl": [w, d, l], "policy": {...}}` and `extra` fields.
fn json_line(eval: &Evaluation, policy: &[(String, f32)], extra: &str) -> String {
    let entries: Vec<String> = policy
        .iter()
        .map(|(mv, p)| {
            format!(
                "{}: {}",
                serde_json::to_string(mv).unwrap(),
                json_number(*p)
            )
        })
        .collect();
    let wdl = eval.wdl;
    format!(
        "{{\"wdl\": [{}, {}, {}], \"policy\": {{{}}}{extra}}}",
        json_number(wdl.win),
        json_number(wdl.draw),
        json_number(wdl.loss),
        entries.join(", ")
    )
}

/// A float as JSON (finite by construction; `null` just in case).
fn json_number(value: f32) -> String {
    serde_json::to_string(&value).unwrap_or_else(|_| "null".into())
}
