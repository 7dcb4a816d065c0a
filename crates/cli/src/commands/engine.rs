//! `shashki engine`: speaks the line protocol of `docs/ENGINE_PROTOCOL.md` on
//! stdin/stdout so other programs (and our match runner) can drive the engine.

use crate::engine_choice::EngineArgs;
use anyhow::Result;
use shashki_protocol::line::serve;

/// Options of `shashki engine`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    engine: EngineArgs,
}

/// The name the engine gives in reply to `name`.
pub fn engine_name() -> String {
    format!("Shashki Zero {}", env!("CARGO_PKG_VERSION"))
}

/// Runs `shashki engine` until `quit` or the end of input.
pub fn run(args: Args) -> Result<()> {
    let mut engine = args.engine.build(&args.engine.protocol_spec()?)?;
    let stdin = std::io::BufReader::new(std::io::stdin());
    serve(engine.as_mut(), &engine_name(), stdin, std::io::stdout())?;
    Ok(())
}
