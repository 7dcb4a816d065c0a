//! The ranges of configuration keys, stated once per key: each config
//! owns a table of `(key, min, max)` (both ends included) that its
//! `validate` enforces, and a run config's sections are checked against
//! the same tables (`shashki_train::config::key_range`).

use std::fmt;

/// The range of one numeric key, both ends included.
pub type KeyRange = (&'static str, f64, f64);

/// A value outside its key's range.
#[derive(Clone, Debug, PartialEq)]
pub struct OutOfRange {
    /// The key.
    pub key: &'static str,
    /// The value, as the config shows it.
    pub value: String,
    /// The smallest value allowed.
    pub min: f64,
    /// The largest value allowed.
    pub max: f64,
}

impl fmt::Display for OutOfRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} = {}: must be in {} ..= {}",
            self.key,
            self.value,
            show_number(self.min),
            show_number(self.max)
        )
    }
}

impl std::error::Error for OutOfRange {}

/// The range of `key` in `table`.
pub fn find(table: &[KeyRange], key: &str) -> Option<(f64, f64)> {
    table
        .iter()
        .find(|(k, _, _)| *k == key)
        .map(|&(_, min, max)| (min, max))
}

/// Checks each `(key, value, shown)` against `table` (NaN is outside every
/// range). Every key must have a range: a missing one is a bug in the
/// caller's table, reported as such.
pub fn check(table: &[KeyRange], values: &[(&'static str, f64, String)]) -> Result<(), OutOfRange> {
    for (key, value, shown) in values {
        let (min, max) = find(table, key).unwrap_or_else(|| panic!("no range for `{key}`"));
        if !(min..=max).contains(value) {
            return Err(OutOfRange {
                key,
                value: shown.clone(),
                min,
                max,
            });
        }
    }
    Ok(())
}

/// A number as a config file would show it.
pub fn show_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// A config value a range applies to.
pub trait RangeValue: ToString {
    /// The value as a float, to compare with its range.
    fn as_f64(&self) -> f64;
}

macro_rules! range_value {
    ($($t:ty),*) => {
        $(impl RangeValue for $t {
            fn as_f64(&self) -> f64 {
                *self as f64
            }
        })*
    };
}
range_value!(u8, u16, u32, u64, usize, f32, f64);

/// `(key, value as f64, value as shown)` of named fields, for [`check`]:
/// `range_fields!(self; batch_size, window)`.
#[macro_export]
macro_rules! range_fields {
    ($config:expr; $($field:ident),* $(,)?) => {
        [$((
            stringify!($field),
            $crate::ranges::RangeValue::as_f64(&$config.$field),
            $config.$field.to_string(),
        )),*]
    };
}
