//! Our errors as Python exceptions: bad input is a `ValueError`, a file
//! that is not there a `FileNotFoundError`, one that cannot be read an
//! `OSError`; each message names what and where.

use pyo3::PyErr;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyValueError};
use std::fmt::Display;
use std::path::Path;

/// A `ValueError` with `message`.
pub fn value_error(message: impl Display) -> PyErr {
    PyValueError::new_err(message.to_string())
}

/// The error of loading `what` from `path`: `FileNotFoundError` when the
/// path does not exist, else `ValueError` (a file that is there but not
/// what was asked for) with the loader's message.
pub fn load_error(what: &str, path: &Path, error: impl Display) -> PyErr {
    if !path.exists() {
        PyFileNotFoundError::new_err(format!("{what} {}: no such file or folder", path.display()))
    } else {
        PyValueError::new_err(format!("{what} {}: {error}", path.display()))
    }
}

/// An `OSError` reading `path`.
pub fn os_error(path: &Path, error: impl Display) -> PyErr {
    PyOSError::new_err(format!("{}: {error}", path.display()))
}
