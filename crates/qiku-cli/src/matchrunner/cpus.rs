//! Pinning engine processes to cores (Linux `sched_setaffinity`), so that with several games at
//! a time each engine searches on a core of its own and the engines do not take time from each
//! other.
//!
//! The cores are those this process may run on ([`allowed_cpus`]: a `taskset` or a cgroup's
//! cpuset narrows them), in ascending order; game slot `k` of a match gets the `2k`-th and
//! `2k+1`-th of them ([`slot_cores`]). A child is pinned between `fork` and `exec`
//! ([`pin_command`]), so every thread it ever starts inherits the mask.

use std::fmt;
use std::process::Command;

/// Why engines cannot be pinned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PinError {
    /// Fewer cores than two per concurrent game.
    TooFewCores {
        /// Games at a time.
        slots: usize,
        /// The cores this process may use.
        available: Vec<usize>,
    },
    /// The system does not say which cores may be used, or cannot pin (not Linux).
    Unsupported(String),
}

impl fmt::Display for PinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PinError::TooFewCores { slots, available } => {
                let list: Vec<String> = available.iter().map(|c| c.to_string()).collect();
                write!(
                    f,
                    "pinning needs two cores per game played at a time: {} for {slots} at a time, but this process may use only {} ({}); lower the concurrency or play without pinning",
                    2 * slots,
                    available.len(),
                    list.join(", ")
                )
            }
            PinError::Unsupported(why) => write!(f, "cannot pin engines to cores: {why}"),
        }
    }
}

impl std::error::Error for PinError {}

/// The cores the current thread may run on, ascending.
#[cfg(target_os = "linux")]
pub fn allowed_cpus() -> Result<Vec<usize>, PinError> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; sched_getaffinity writes at most
    // size_of::<cpu_set_t>() bytes into it, and CPU_ISSET reads within it for i < CPU_SETSIZE.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(PinError::Unsupported(std::io::Error::last_os_error().to_string()));
        }
        Ok((0..libc::CPU_SETSIZE as usize).filter(|&i| libc::CPU_ISSET(i, &set)).collect())
    }
}

/// The cores the current thread may run on (not known off Linux).
#[cfg(not(target_os = "linux"))]
pub fn allowed_cpus() -> Result<Vec<usize>, PinError> {
    Err(PinError::Unsupported("pinning is implemented for Linux only".into()))
}

/// The two cores of each of `slots` concurrent games: `[engine 1's, engine 2's]` per slot.
pub fn slot_cores(slots: usize) -> Result<Vec<[usize; 2]>, PinError> {
    let available = allowed_cpus()?;
    if available.len() < 2 * slots {
        return Err(PinError::TooFewCores { slots, available });
    }
    Ok(available.chunks_exact(2).take(slots).map(|c| [c[0], c[1]]).collect())
}

#[cfg(target_os = "linux")]
fn one_cpu_set(cpu: usize) -> std::io::Result<libc::cpu_set_t> {
    if cpu >= libc::CPU_SETSIZE as usize {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("no core {cpu}")));
    }
    // SAFETY: a zeroed cpu_set_t is a valid empty set, and cpu is below CPU_SETSIZE.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        Ok(set)
    }
}

/// Pins the calling thread to `cpu` (threads and processes it starts afterwards inherit this).
#[cfg(target_os = "linux")]
pub fn pin_current_thread(cpu: usize) -> std::io::Result<()> {
    let set = one_cpu_set(cpu)?;
    // SAFETY: set is a valid cpu_set_t of the size passed; pid 0 is the calling thread.
    if unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Pins the calling thread to `cpu` (not available off Linux).
#[cfg(not(target_os = "linux"))]
pub fn pin_current_thread(_cpu: usize) -> std::io::Result<()> {
    Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "pinning is implemented for Linux only"))
}

/// Makes the process `cmd` starts run on `cpu` only, from before its program starts.
#[cfg(target_os = "linux")]
pub fn pin_command(cmd: &mut Command, cpu: usize) -> std::io::Result<()> {
    use std::os::unix::process::CommandExt;
    let set = one_cpu_set(cpu)?;
    // SAFETY: the closure runs in the child between fork and exec, where only async-signal-safe
    // calls are allowed: it makes one system call (sched_setaffinity) on a set prepared before
    // the fork, and allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    Ok(())
}

/// Makes the process `cmd` starts run on `cpu` only (not available off Linux).
#[cfg(not(target_os = "linux"))]
pub fn pin_command(_cmd: &mut Command, _cpu: usize) -> std::io::Result<()> {
    Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "pinning is implemented for Linux only"))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn allowed_list(status: &str) -> String {
        status
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
            .map(|v| v.trim().to_string())
            .expect("Cpus_allowed_list in the status file")
    }

    #[test]
    fn a_pinned_thread_runs_on_its_core_only() {
        let cpus = allowed_cpus().unwrap();
        assert!(!cpus.is_empty());
        let last = *cpus.last().unwrap();
        // A thread of its own, so the test's other threads keep their cores.
        let (list, after) = std::thread::spawn(move || {
            pin_current_thread(last).unwrap();
            let status = std::fs::read_to_string("/proc/thread-self/status").unwrap();
            (allowed_list(&status), allowed_cpus().unwrap())
        })
        .join()
        .unwrap();
        assert_eq!(list, last.to_string());
        assert_eq!(after, vec![last]);
        assert!(pin_current_thread(1 << 20).is_err());
    }

    #[test]
    fn a_pinned_child_runs_on_its_core_only() {
        let cpus = allowed_cpus().unwrap();
        for &cpu in cpus.iter().take(2) {
            let mut cmd = Command::new("sh");
            cmd.args(["-c", "grep Cpus_allowed_list /proc/self/status"]);
            pin_command(&mut cmd, cpu).unwrap();
            let out = cmd.output().unwrap();
            assert!(out.status.success());
            assert_eq!(allowed_list(&String::from_utf8(out.stdout).unwrap()), cpu.to_string());
        }
    }

    #[test]
    fn slots_take_two_cores_each_or_are_refused() {
        let cpus = allowed_cpus().unwrap();
        let n = cpus.len() / 2;
        if n > 0 {
            let slots = slot_cores(n).unwrap();
            assert_eq!(slots.len(), n);
            assert_eq!(slots[0], [cpus[0], cpus[1]]);
        }
        let err = slot_cores(n + 1).unwrap_err();
        assert_eq!(err, PinError::TooFewCores { slots: n + 1, available: cpus.clone() });
        let text = err.to_string();
        assert!(text.contains(&format!("{} for {} at a time", 2 * (n + 1), n + 1)), "{text}");
        assert!(text.contains("lower the concurrency"), "{text}");
    }
}
