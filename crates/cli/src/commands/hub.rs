//! `shashki hub`: speaks the Hub protocol (docs/ENGINE_PROTOCOL.md, "Hub")
//! on stdin/stdout, so pydraughts, lidraughts-bot and Hub GUIs can drive the
//! engine.

use crate::engine_choice::EngineArgs;
use anyhow::Result;
use shashki_protocol::hub::{Identity, serve_hub};

/// Options of `shashki hub`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    engine: EngineArgs,
}

/// Runs `shashki hub` until `quit` or the end of input.
pub fn run(args: Args) -> Result<()> {
    let mut engine = args.engine.build(&args.engine.protocol_spec()?)?;
    let identity = Identity {
        name: "Shashki Zero".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        author: "the Shashki Zero authors".to_string(),
        engine: engine.description(),
    };
    let stdin = std::io::BufReader::new(std::io::stdin());
    serve_hub(engine.as_mut(), &identity, stdin, std::io::stdout())?;
    Ok(())
}
