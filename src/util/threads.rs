//! The worker-thread count a program is given through `RAYON_NUM_THREADS`, checked before rayon's
//! pool starts. Rayon takes any number there and starts that many threads at its first parallel
//! call: `RAYON_NUM_THREADS=99999` made a three-second table generation run for half an hour
//! with fifteen thousand threads fighting for two cores. The programs refuse such a value with a
//! message, as they refuse `--threads` out of its range.

use std::fmt;

/// The most worker threads a program or a build may be given (`--threads`, `RAYON_NUM_THREADS`).
pub const MAX_WORKER_THREADS: usize = 1024;

/// Why `RAYON_NUM_THREADS` cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerThreadsError {
    value: String,
}

impl fmt::Display for WorkerThreadsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the environment variable RAYON_NUM_THREADS is {:?}: the worker threads are a number from 1 to \
             {MAX_WORKER_THREADS} (0 or unset: one per CPU); unset it or set it in that range",
            crate::util::text::excerpt(&self.value)
        )
    }
}

impl std::error::Error for WorkerThreadsError {}

/// Checks `RAYON_NUM_THREADS`: unset, empty, or a whole number up to [`MAX_WORKER_THREADS`]
/// (0 meaning one per CPU, as rayon reads it) is `Ok`; anything else is an error to report
/// before any parallel work starts.
///
/// ```
/// // This process's environment, as the programs check it first.
/// let checked = qiku::check_worker_threads_env();
/// assert_eq!(checked.is_ok(), std::env::var("RAYON_NUM_THREADS").map_or(true, |v| v.trim().parse::<usize>().is_ok_and(|n| n <= 1024)));
/// ```
pub fn check_worker_threads_env() -> Result<(), WorkerThreadsError> {
    match std::env::var_os("RAYON_NUM_THREADS") {
        None => Ok(()),
        Some(value) => check_value(&value.to_string_lossy()),
    }
}

/// [`check_worker_threads_env`] for a value.
fn check_value(value: &str) -> Result<(), WorkerThreadsError> {
    match value.trim() {
        "" => Ok(()),
        v if v.parse::<usize>().is_ok_and(|n| n <= MAX_WORKER_THREADS) => Ok(()),
        _ => Err(WorkerThreadsError { value: value.to_string() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_in_range_pass_and_others_are_refused_by_name() {
        for ok in ["", " ", "0", "1", "2", "1024"] {
            assert_eq!(check_value(ok), Ok(()), "{ok:?}");
        }
        for bad in ["1025", "99999", "-1", "two", "1.5", "18446744073709551616"] {
            let e = check_value(bad).unwrap_err().to_string();
            assert!(e.contains("RAYON_NUM_THREADS") && e.contains(bad) && e.contains("1 to 1024"), "{e}");
        }
    }
}
