//! The worker pool both self-players run on.

use crate::error::SelfPlayError;

/// A rayon pool of `threads` threads named `name-i`.
pub(crate) fn thread_pool(threads: usize, name: &str) -> Result<rayon::ThreadPool, SelfPlayError> {
    let name = name.to_string();
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(move |i| format!("{name}-{i}"))
        .build()
        .map_err(|e| SelfPlayError::Pool(e.to_string()))
}
