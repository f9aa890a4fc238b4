//! Helpers shared by the programs' tests.

#![allow(dead_code)]

use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `exe args` with stdin closed, killing it if it has not finished in `secs` (a hang is a
/// failure, not a stuck test run).
pub fn run_with_timeout(exe: &str, args: &[&str], secs: u64) -> Output {
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // Read both pipes while waiting: a full pipe would block a program with much to say.
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            r.read_to_end(&mut v).expect("read");
            v
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("stdout")));
    let err = drain(Box::new(child.stderr.take().expect("stderr")));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > Duration::from_secs(secs) {
            child.kill().expect("kill");
            panic!("{exe} {args:?} hung for {secs} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output { status, stdout: out.join().expect("stdout"), stderr: err.join().expect("stderr") }
}

/// A fresh directory for test `name` under the system's temporary directory (removed first if an
/// earlier run left it).
pub fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("qiku_{name}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Runs `qiku-tb args` to the end.
pub fn qiku_tb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qiku-tb")).args(args).output().expect("run qiku-tb")
}

/// A memory control group of its own under this process's (cgroup v1's memory controller or
/// cgroup v2), limited to `limit` bytes, removed when dropped; an error saying why when this
/// process may not make one (not root, no memory controller).
pub struct LimitedGroup(std::path::PathBuf);

impl LimitedGroup {
    pub fn new(limit: u64) -> Result<LimitedGroup, String> {
        let groups = std::fs::read_to_string("/proc/self/cgroup").map_err(|e| format!("/proc/self/cgroup: {e}"))?;
        let v1 = groups.lines().find_map(|l| l.split_once(":memory:").map(|(_, path)| path.to_string()));
        let v2 = groups.lines().find_map(|l| l.strip_prefix("0::").map(str::to_string));
        let (base, limit_file) = match (v1, v2) {
            (Some(path), _) => (format!("/sys/fs/cgroup/memory{path}"), "memory.limit_in_bytes"),
            (None, Some(path)) => (format!("/sys/fs/cgroup{path}"), "memory.max"),
            (None, None) => return Err("no memory control group".into()),
        };
        // One name per group: tests run side by side in this process.
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::path::Path::new(&base).join(format!("qiku-cli-test-{}-{n}", std::process::id()));
        std::fs::create_dir(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        let group = LimitedGroup(dir);
        std::fs::write(group.0.join(limit_file), limit.to_string())
            .map_err(|e| format!("cannot limit {}: {e}", group.0.display()))?;
        Ok(group)
    }

    /// [`LimitedGroup::new`], or `None` after printing why the test calling it is skipped.
    pub fn or_skip(limit: u64) -> Option<LimitedGroup> {
        LimitedGroup::new(limit)
            .map_err(|why| eprintln!("skipped: {why} (the test needs to make a memory control group, as root does)"))
            .ok()
    }

    /// A command that moves itself into the group, then runs `exe` there (with the arguments
    /// added to it).
    pub fn command(&self, exe: &str) -> Command {
        let mut command = Command::new("sh");
        command.args(["-c", "echo $$ > \"$0/cgroup.procs\" && exec \"$@\""]).arg(&self.0).arg(exe);
        command
    }
}

impl Drop for LimitedGroup {
    fn drop(&mut self) {
        // Empty once the program run in it has exited.
        let _ = std::fs::remove_dir(&self.0);
    }
}
