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
