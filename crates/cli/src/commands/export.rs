//! `shashki export`: a checkpoint (or an exported model folder) as
//! `model.safetensors` + `model.json`, or as a self-contained `model.onnx`
//! (the documented formats for other front ends, docs/MODEL.md). An NNUE
//! model folder exports its float net as `model.onnx`.

use anyhow::{Result, bail};
use shashki_net::{
    Checkpoint, MODEL_JSON_FILE, ONNX_FILE, WEIGHTS_FILE, export_model, export_onnx, import_model,
};
use std::path::{Path, PathBuf};

/// What `shashki export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// `model.safetensors` + `model.json` (weights and description).
    Safetensors,
    /// `model.onnx`: the whole forward pass, for ONNX Runtime and other
    /// ONNX backends.
    Onnx,
}

impl Format {
    fn files(self) -> &'static [&'static str] {
        match self {
            Format::Safetensors => &[WEIGHTS_FILE, MODEL_JSON_FILE],
            Format::Onnx => &[ONNX_FILE],
        }
    }
}

/// Options of `shashki export`.
#[derive(clap::Args)]
pub struct Args {
    /// The checkpoint to export.
    #[arg(long, required_unless_present = "model", conflicts_with = "model")]
    checkpoint: Option<PathBuf>,
    /// An exported model folder to export again (e.g. as ONNX); an NNUE
    /// model folder (`--format onnx` only).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Folder to write the model into (created if needed).
    #[arg(long)]
    out: PathBuf,
    /// `safetensors`: model.safetensors + model.json; `onnx`: model.onnx.
    #[arg(long, value_enum, default_value = "safetensors")]
    format: Format,
    /// Replace a model already in `--out`.
    #[arg(long)]
    force: bool,
}

/// Runs `shashki export`.
pub fn run(args: Args) -> Result<()> {
    if args.out.exists() && !args.out.is_dir() {
        bail!(
            "--out {}: is a file; export writes a folder",
            args.out.display()
        );
    }
    let existing: Vec<&str> = args
        .format
        .files()
        .iter()
        .copied()
        .filter(|name| args.out.join(name).exists())
        .collect();
    if !existing.is_empty() && !args.force {
        bail!(
            "--out {}: already holds {}; use --force to replace it",
            args.out.display(),
            existing.join(" and ")
        );
    }
    if let Some(dir) = args.model.as_deref().filter(|dir| is_nnue_folder(dir)) {
        return export_nnue(dir, &args);
    }
    let (source, checkpoint) = match (&args.checkpoint, &args.model) {
        (Some(file), _) => (file, Checkpoint::load(file)?),
        (None, Some(dir)) => (dir, import_model(dir)?),
        (None, None) => unreachable!("clap requires one"),
    };
    match args.format {
        Format::Safetensors => export_model(&checkpoint, &args.out)?,
        Format::Onnx => {
            export_onnx(&checkpoint, &args.out)?;
        }
    }
    println!(
        "exported {} (step {}, {}) to {} as {}",
        source.display(),
        checkpoint.step,
        checkpoint.config.to_json(),
        args.out.display(),
        args.format.files().join(" + ")
    );
    Ok(())
}

/// Whether `dir` is an NNUE model folder (its `model.json` says so).
fn is_nnue_folder(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join(MODEL_JSON_FILE))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .is_some_and(|json| json["format"] == shashki_nnue::file::NNUE_FORMAT)
}

/// Exports an NNUE model folder's float net as `model.onnx`.
fn export_nnue(dir: &Path, args: &Args) -> Result<()> {
    if args.format != Format::Onnx {
        bail!(
            "--model {}: an NNUE model folder is already exported; --format onnx writes its float net as {ONNX_FILE}",
            dir.display()
        );
    }
    let (net, json) = shashki_nnue::load_float(dir)?;
    let file = shashki_nnue::export_nnue_onnx(&net, json.training_step, &args.out)?;
    println!(
        "exported the NNUE {} (step {}, {}) to {}",
        dir.display(),
        json.training_step,
        serde_json::to_string(&net.arch)?,
        file.display()
    );
    Ok(())
}
