//! `shashki tb`: endgame tablebases exact under the official draw rules
//! (docs/TABLEBASES.md): generate, probe, verify, bench.

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use shashki_rules::{DrawRules, Game, Position};
use shashki_tablebase::{Progress, TableReport, Tablebases, Wdl, generate, verify};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Options of `shashki tb`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Generate every table up to N pieces (resumes: valid files are kept).
    Generate {
        /// Most pieces on the board (2..=5 exact under the official rules).
        #[arg(long)]
        pieces: u8,
        /// Folder for the table files.
        #[arg(long)]
        out: PathBuf,
        /// Worker threads (default: every core).
        #[arg(long)]
        threads: Option<usize>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// The result, distance and best moves of one position.
    Probe {
        /// Position (PDN FEN).
        #[arg(long)]
        fen: String,
        /// Moves played from the FEN first, so that the draw counters are
        /// those of that game (e.g. "a1-b2 h8-g7").
        #[arg(long, default_value = "")]
        moves: String,
        /// Folder of the table files.
        #[arg(long, default_value = "tablebases")]
        dir: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Re-check every table file in a folder: header, size, checksum, and a
    /// sample of positions against their successors under the rules.
    Verify {
        /// Folder of the table files.
        dir: PathBuf,
        /// Most pieces to look for.
        #[arg(long, default_value_t = 5)]
        pieces: u8,
        /// Positions re-checked per table.
        #[arg(long, default_value_t = 2000)]
        samples: usize,
    },
    /// Probe speed: random positions of the loaded tables, against one
    /// move generation of the same positions as the baseline.
    Bench {
        /// Folder of the table files.
        #[arg(long, default_value = "tablebases")]
        dir: PathBuf,
        /// Probes to time.
        #[arg(long, default_value_t = 2_000_000)]
        probes: usize,
    },
}

/// Runs `shashki tb`.
pub fn run(args: Args) -> Result<()> {
    match args.command {
        Command::Generate {
            pieces,
            out,
            threads,
            quiet,
        } => run_generate(pieces, &out, threads, quiet),
        Command::Probe {
            fen,
            moves,
            dir,
            json,
        } => run_probe(&fen, &moves, &dir, json),
        Command::Verify {
            dir,
            pieces,
            samples,
        } => run_verify(&dir, pieces, samples),
        Command::Bench { dir, probes } => run_bench(&dir, probes),
    }
}

fn run_generate(pieces: u8, out: &Path, threads: Option<usize>, quiet: bool) -> Result<()> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .context("cannot start the thread pool")?;
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr())
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} pairs, {msg} (eta {eta})",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    let start = Instant::now();
    let mut reports: Vec<TableReport> = Vec::new();
    let rules = DrawRules::default();
    pool.install(|| {
        generate(out, pieces, &rules, &mut |p| match p {
            Progress::Start {
                pair,
                pairs,
                materials,
                entries,
            } => {
                bar.set_length(pairs as u64);
                bar.set_position(pair as u64);
                let names: Vec<String> = materials.iter().map(|m| m.to_string()).collect();
                bar.set_message(format!("{} ({entries} entries)", names.join(" + ")));
            }
            Progress::Done(done) => {
                bar.inc(1);
                reports.extend(done);
            }
        })
    })
    .with_context(|| format!("generating tables in {}", out.display()))?;
    bar.finish_and_clear();
    print_summary(&reports, start.elapsed().as_secs_f64());
    Ok(())
}

/// Totals per number of pieces, and the memory peak of this process.
fn print_summary(reports: &[TableReport], seconds: f64) {
    println!("pieces  tables  made  entries       bytes         seconds  max dtz");
    for pieces in 2..=reports
        .iter()
        .map(|r| r.material.pieces())
        .max()
        .unwrap_or(2)
    {
        let of: Vec<_> = reports
            .iter()
            .filter(|r| r.material.pieces() == pieces)
            .collect();
        println!(
            "{pieces:<7} {:<7} {:<5} {:<13} {:<13} {:<8.1} {}",
            of.len(),
            of.iter().filter(|r| r.generated).count(),
            of.iter().map(|r| r.entries).sum::<u64>(),
            of.iter().map(|r| r.bytes).sum::<u64>(),
            // Pairs share one timing: count each pair once.
            of.iter()
                .filter(|r| r.material <= r.material.swapped())
                .map(|r| r.seconds)
                .sum::<f64>(),
            of.iter().map(|r| r.max_dtz).max().unwrap_or(0),
        );
    }
    println!(
        "total: {} tables, {} bytes, {seconds:.1} s wall, memory peak {}",
        reports.len(),
        reports.iter().map(|r| r.bytes).sum::<u64>(),
        peak_memory().unwrap_or_else(|| "unknown".into())
    );
}

/// The resident-set peak (Linux `VmHWM`), if the system says.
fn peak_memory() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.trim_start_matches("VmHWM:").trim().to_string())
}

fn load(dir: &Path, pieces: u8) -> Result<Tablebases> {
    let (tb, errors) = Tablebases::load(dir, DrawRules::default(), pieces);
    for e in &errors {
        eprintln!("warning: {e}");
    }
    if tb.is_empty() {
        bail!(
            "no tablebase file in {} (make them with `shashki tb generate --pieces N --out {}`)",
            dir.display(),
            dir.display()
        );
    }
    Ok(tb)
}

fn wdl_word(wdl: Wdl) -> &'static str {
    match wdl {
        Wdl::Win => "win",
        Wdl::Draw => "draw",
        Wdl::Loss => "loss",
    }
}

fn run_probe(fen: &str, moves: &str, dir: &Path, json: bool) -> Result<()> {
    let start = Position::from_fen(fen).with_context(|| format!("reading the FEN {fen:?}"))?;
    let mut game = Game::new(start);
    for text in moves.split_whitespace() {
        game.play_notation(text)
            .with_context(|| format!("playing {text:?} from {fen}"))?;
    }
    let pos = *game.position();
    let pieces = pos.occupied().count_ones() as u8;
    let tb = load(dir, pieces.max(2))?;
    let found = tb.best_moves(&pos, game.counters());
    let Some((probe, best)) = found else {
        bail!(
            "{} is not in the tablebase ({pieces} pieces; loaded up to {})",
            pos.to_fen(),
            tb.max_pieces()
        );
    };
    let best: Vec<String> = best.iter().map(|m| m.to_string()).collect();
    let stm = pos.side_to_move();
    let result = match probe.wdl {
        Wdl::Win => shashki_rules::GameResult::win_for(stm),
        Wdl::Loss => shashki_rules::GameResult::win_for(stm.opponent()),
        Wdl::Draw => shashki_rules::GameResult::Draw,
    };
    if json {
        let value = serde_json::json!({
            "fen": pos.to_fen(),
            "side_to_move": stm.to_string(),
            "wdl": wdl_word(probe.wdl),
            "result": result.pdn(),
            "dtz": probe.dtz,
            "cursed": probe.cursed,
            "best_moves": best,
            "game_over": game.outcome().map(|o| o.to_string()),
        });
        println!("{value}");
    } else {
        println!("position: {}", pos.to_fen());
        println!(
            "result:   {} for {stm} ({})",
            wdl_word(probe.wdl),
            result.pdn()
        );
        match probe.dtz {
            Some(d) => println!("dtz:      {d} half-moves to the next capture, promotion or end"),
            None if probe.cursed => {
                println!("dtz:      -  (a win without the counting rules; they make it a draw)")
            }
            None => println!("dtz:      -"),
        }
        if let Some(outcome) = game.outcome() {
            println!("game:     already over: {outcome}");
        }
        if best.is_empty() {
            println!("best:     none ({stm} has no legal move)");
        } else {
            println!("best:     {}", best.join(" "));
        }
    }
    Ok(())
}

fn run_verify(dir: &Path, pieces: u8, samples: usize) -> Result<()> {
    let (reports, errors) = verify(dir, &DrawRules::default(), pieces, samples);
    for r in &reports {
        println!(
            "ok  {:<12} {:>10} entries  W {:>9} D {:>9} L {:>9}  max dtz {}",
            r.material.to_string(),
            r.entries,
            r.wins,
            r.draws,
            r.losses,
            r.max_dtz
        );
    }
    for e in &errors {
        println!("BAD {e}");
    }
    if reports.is_empty() && errors.is_empty() {
        bail!("no tablebase file in {}", dir.display());
    }
    if !errors.is_empty() {
        bail!(
            "{} of {} tables failed",
            errors.len(),
            reports.len() + errors.len()
        );
    }
    println!(
        "{} tables verified ({samples} positions each re-checked)",
        reports.len()
    );
    Ok(())
}

fn run_bench(dir: &Path, probes: usize) -> Result<()> {
    let tb = load(dir, 7)?;
    // Random positions of the largest tables (White to move and flipped).
    let top = tb.max_pieces();
    let tables: Vec<_> = tb
        .tables()
        .filter(|t| t.material().pieces() == top)
        .collect();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut sample = Vec::with_capacity(4096);
    while sample.len() < 4096 {
        let t = tables[next() as usize % tables.len()];
        let ix = shashki_tablebase::Indexer::new(t.material());
        if let Some(p) = ix.position(next() % ix.len()) {
            sample.push(if sample.len() % 2 == 0 {
                p
            } else {
                p.flipped()
            });
        }
    }
    let counters: Vec<_> = sample
        .iter()
        .map(shashki_rules::DrawCounters::start)
        .collect();
    let time = |f: &mut dyn FnMut(usize) -> u64| {
        let start = Instant::now();
        let mut acc = 0u64;
        for i in 0..probes {
            acc = acc.wrapping_add(f(i % sample.len()));
        }
        (start.elapsed().as_nanos() as f64 / probes as f64, acc)
    };
    let (probe_ns, a) = time(&mut |i| {
        tb.probe(&sample[i], &counters[i])
            .map_or(0, |p| p.wdl.score() as u64)
    });
    let (movegen_ns, b) = time(&mut |i| sample[i].legal_moves().len() as u64);
    println!(
        "{probes} probes of {top}-piece positions: {probe_ns:.1} ns per probe; \
         one move generation of the same positions: {movegen_ns:.1} ns (probe/movegen = {:.2}) [{}]",
        probe_ns / movegen_ns,
        (a ^ b) & 1
    );
    Ok(())
}
