//! The engine (`qiku`, `qiku ucci`) when its standard output fails while its input stays open:
//! a GUI that closed the engine's output, or a disk that is full. The engine ends at once, also
//! in the middle of `go infinite`: quietly with success for a closed pipe (nobody is left to
//! read), with the error said once on standard error and a failure for any other.
//! Time bounds here are liveness checks (generous), not speed assertions.

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const LIVENESS: Duration = Duration::from_secs(20);

/// How the engine's standard output fails.
#[derive(Clone, Copy, Debug)]
enum Failure {
    /// A pipe whose reading end is closed before the engine writes.
    ClosedPipe,
    /// `/dev/full`: every write fails with "no space left on device".
    FullDisk,
}

/// `qiku args` with its output failing as `failure`, its standard error piped; its input open.
fn start(args: &[&str], failure: Failure) -> (Child, ChildStdin) {
    let stdout = match failure {
        Failure::ClosedPipe => Stdio::piped(),
        Failure::FullDisk => Stdio::from(std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full")),
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_qiku"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("start qiku");
    drop(child.stdout.take());
    let stdin = child.stdin.take().expect("stdin");
    (child, stdin)
}

/// Sends `lines`, keeps the input open, and waits for the engine to end: its status and what it
/// said on standard error. A test fails (and the engine is killed) if it is still running after
/// [`LIVENESS`].
fn exits_after(child: &mut Child, stdin: &mut ChildStdin, lines: &[&str]) -> (ExitStatus, String) {
    for line in lines {
        // The engine may already be gone, the input closed with it.
        let _ = writeln!(stdin, "{line}").and_then(|()| stdin.flush());
    }
    let deadline = Instant::now() + LIVENESS;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().expect("kill");
            let _ = child.wait();
            panic!("qiku went on after its output failed ({lines:?})");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    child.stderr.take().expect("stderr").read_to_string(&mut stderr).expect("read stderr");
    (status, stderr)
}

#[test]
fn a_closed_output_ends_the_engine_quietly() {
    for (args, lines) in [
        (&[][..], &["uci", "isready"][..]),
        // During an infinite search: its first line of output fails.
        (&["uci"], &["position startpos", "go infinite"]),
        // UCCI, whose output goes through the UCI session's.
        (&["ucci"], &["ucci"]),
        (&["ucci"], &["position startpos", "go depth infinite"]),
    ] {
        let (mut child, mut stdin) = start(args, Failure::ClosedPipe);
        let (status, stderr) = exits_after(&mut child, &mut stdin, lines);
        assert!(status.success(), "{args:?} {lines:?}: {status}, {stderr}");
        assert_eq!(stderr, "", "{args:?} {lines:?}");
    }
}

#[test]
fn a_full_output_is_said_once_and_fails() {
    if !std::path::Path::new("/dev/full").exists() {
        eprintln!("no /dev/full: skipped");
        return;
    }
    for lines in [&["uci", "isready", "isready"][..], &["position startpos", "go infinite"]] {
        let (mut child, mut stdin) = start(&[], Failure::FullDisk);
        let (status, stderr) = exits_after(&mut child, &mut stdin, lines);
        assert!(!status.success(), "{lines:?}: {status}");
        let said: Vec<&str> = stderr.lines().collect();
        assert_eq!(said.len(), 1, "{lines:?}: {stderr}");
        assert!(said[0].starts_with("qiku: cannot write to standard output: "), "{stderr}");
    }
}
