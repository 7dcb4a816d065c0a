//! The option syntax the player kinds share: `key=value,flag,...` after the
//! kind's prefix (or after `@` behind a path), numbers, and quoted paths.

use std::str::FromStr;

/// `key=value,flag,...` into pairs (empty text: none).
pub(crate) fn options(text: &str) -> Result<Vec<(&str, Option<&str>)>, String> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() && !v.trim().is_empty() => {
                out.push((k.trim(), Some(v.trim())))
            }
            Some(_) => return Err(format!("option {part:?} needs key=value")),
            None => out.push((part, None)),
        }
    }
    Ok(out)
}

/// `first` then `second`: one kind's option list built from lists other
/// kinds share, each written once.
pub(crate) const fn joined<const A: usize, const B: usize, const N: usize>(
    first: [&'static str; A],
    second: [&'static str; B],
) -> [&'static str; N] {
    assert!(A + B == N, "the joined list's length is the sum of the two");
    let mut out = [""; N];
    let mut i = 0;
    while i < A {
        out[i] = first[i];
        i += 1;
    }
    while i < N {
        out[i] = second[i - A];
        i += 1;
    }
    out
}

/// The value of option `key` as a number.
pub(crate) fn number<T: FromStr>(key: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("{key}={value:?} is not a non-negative integer"))
}

/// `PATH@options` (or `PATH` alone) split at the last `@`; the path as
/// written, quotes and all.
pub(crate) fn path_and_options(rest: &str) -> (&str, Option<&str>) {
    match rest.rsplit_once('@') {
        Some((path, opts)) => (path, Some(opts)),
        None => (rest, None),
    }
}

/// The network path and the options of a `net:` or `nnue:` spec: the path
/// unquoted; `kind` names the player in the error when there is none.
pub(crate) fn network_path_and_options<'a>(
    rest: Option<&'a str>,
    kind: &str,
) -> Result<(&'a str, &'a str), String> {
    let missing = || format!("{kind} needs a path");
    let rest = rest.filter(|r| !r.is_empty()).ok_or_else(missing)?;
    let (path, opts) = path_and_options(rest);
    let path = unquote(path);
    if path.is_empty() {
        return Err(missing());
    }
    Ok((path, opts.unwrap_or("")))
}

fn unquote(text: &str) -> &str {
    let t = text.trim();
    t.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(t)
}
