//! The Hub line syntax: `<command> <name>=<value> <flag> ...`, values in
//! double quotes when they hold a space or `=` or are empty (Scan 3.1's
//! `protocol.txt`, "general syntax"). Both directions use it.

use crate::ProtocolError;
use std::fmt;

/// One argument: `name=value`, or a flag (`name` alone, `value` `None`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arg {
    /// The argument's name.
    pub name: String,
    /// Its value, unquoted; `None` for a flag.
    pub value: Option<String>,
}

/// One line: a command word and its arguments in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The first word.
    pub command: String,
    /// The arguments after it.
    pub args: Vec<Arg>,
}

impl Line {
    /// A line with no arguments yet.
    pub fn new(command: impl Into<String>) -> Line {
        Line {
            command: command.into(),
            args: Vec::new(),
        }
    }

    /// Adds `name=value`.
    pub fn with(mut self, name: &str, value: impl fmt::Display) -> Line {
        self.args.push(Arg {
            name: name.to_string(),
            value: Some(value.to_string()),
        });
        self
    }

    /// Adds the flag `name`.
    pub fn flag(mut self, name: &str) -> Line {
        self.args.push(Arg {
            name: name.to_string(),
            value: None,
        });
        self
    }

    /// The value of the first argument called `name` (`Some("")` for a flag).
    pub fn value(&self, name: &str) -> Option<&str> {
        self.args
            .iter()
            .find(|arg| arg.name == name)
            .map(|arg| arg.value.as_deref().unwrap_or(""))
    }

    /// Whether an argument (flag or not) called `name` is present.
    pub fn has(&self, name: &str) -> bool {
        self.args.iter().any(|arg| arg.name == name)
    }

    /// Splits a line into its command and arguments; `None` for a blank
    /// line. Only an unterminated quote is an error.
    pub fn parse(text: &str) -> Result<Option<Line>, ProtocolError> {
        let mut rest = text.trim();
        let Some(command) = next_word(&mut rest) else {
            return Ok(None);
        };
        let mut line = Line::new(command);
        loop {
            rest = rest.trim_start();
            if rest.is_empty() {
                return Ok(Some(line));
            }
            let name_end = rest
                .find(|c: char| c.is_whitespace() || c == '=')
                .unwrap_or(rest.len());
            let name = rest[..name_end].to_string();
            rest = &rest[name_end..];
            let value = match rest.strip_prefix('=') {
                None => None,
                Some(after) => {
                    rest = after;
                    Some(read_value(&mut rest, &name)?)
                }
            };
            line.args.push(Arg { name, value });
        }
    }
}

/// The first whitespace-separated word of `rest`, which moves past it.
fn next_word<'a>(rest: &mut &'a str) -> Option<&'a str> {
    let text = rest.trim_start();
    if text.is_empty() {
        return None;
    }
    let end = text.find(char::is_whitespace).unwrap_or(text.len());
    *rest = &text[end..];
    Some(&text[..end])
}

/// A value: quoted up to the closing quote, else up to the next space.
fn read_value(rest: &mut &str, name: &str) -> Result<String, ProtocolError> {
    if let Some(quoted) = rest.strip_prefix('"') {
        let Some(end) = quoted.find('"') else {
            return Err(ProtocolError::new(format!(
                "{name}: the quoted value has no closing quote"
            )));
        };
        *rest = &quoted[end + 1..];
        return Ok(quoted[..end].to_string());
    }
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let value = rest[..end].to_string();
    *rest = &rest[end..];
    Ok(value)
}

/// The line as sent: values quoted when they need it. A `"` inside a value
/// cannot be quoted in Hub and is written as `'`.
impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.command)?;
        for arg in &self.args {
            write!(f, " {}", arg.name)?;
            if let Some(value) = &arg.value {
                let value = value.replace('"', "'").replace(['\n', '\r'], " ");
                if value.is_empty() || value.contains(|c: char| c.is_whitespace() || c == '=') {
                    write!(f, "=\"{value}\"")?;
                } else {
                    write!(f, "={value}")?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_names_values_quotes_and_flags() {
        let line = Line::parse("  pos pos=Wbbe moves=\"9-13 22-18\" start \r")
            .unwrap()
            .unwrap();
        assert_eq!(line.command, "pos");
        assert_eq!(line.value("pos"), Some("Wbbe"));
        assert_eq!(line.value("moves"), Some("9-13 22-18"));
        assert_eq!(line.value("start"), Some(""));
        assert!(line.has("start") && !line.has("level"));
        assert_eq!(line.args[2].value, None);
        let line = Line::parse("set-param name=x value=\"\"").unwrap().unwrap();
        assert_eq!(line.value("value"), Some(""));
        assert_eq!(Line::parse(" \t ").unwrap(), None);
        let err = Line::parse("pos moves=\"9-13").unwrap_err();
        assert!(err.message.contains("closing quote"), "{}", err.message);
    }

    #[test]
    fn printing_quotes_what_needs_it_and_parses_back() {
        let line = Line::new("info")
            .with("depth", 7)
            .with("pv", "9-13 22-18")
            .with("note", "")
            .with("eq", "a=b")
            .flag("ponder");
        let text = line.to_string();
        assert_eq!(
            text,
            "info depth=7 pv=\"9-13 22-18\" note=\"\" eq=\"a=b\" ponder"
        );
        assert_eq!(Line::parse(&text).unwrap().unwrap(), line);
        let quoted = Line::new("error").with("message", "bad \"x\"\nmore");
        assert_eq!(quoted.to_string(), "error message=\"bad 'x' more\"");
    }
}
