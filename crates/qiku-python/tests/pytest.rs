//! Runs the Python test suite from `cargo test`: builds the `qiku` wheel into a virtual
//! environment under the target directory (`pip install` of this crate, as a user installs it),
//! then runs pytest on `tests/`. Fails when the build or a Python test fails.
//!
//! Skips, with a message saying why, when there is no `python3` with `venv` and `pip` (or pip
//! cannot fetch pytest and NumPy). pyffish and cchess, which the cross-check and the benchmark
//! compare against, are installed when pip can get them; without them those tests skip.
//!
//! The inner build has its own target directory (`target/tmp/qiku-python-build`, kept between
//! runs) so that it does not wait on the lock of the outer `cargo test`; it is the build pip runs
//! (the workspace's `python` profile: release code in parallel codegen units), a couple of minutes
//! on two cores.
//! `QIKU_PYTHON` names another interpreter.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Runs `cmd`, returning whether it succeeded; its output goes to the test's output.
fn run(cmd: &mut Command) -> bool {
    match cmd.status() {
        Ok(s) => s.success(),
        Err(e) => {
            println!("could not run {cmd:?}: {e}");
            false
        }
    }
}

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The virtual environment's Python, made (or reused) under the target directory; `None` with a
/// printed reason when Python or its `venv` module is missing.
fn venv(tmp: &Path) -> Option<PathBuf> {
    let python = std::env::var("QIKU_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let dir = tmp.join("qiku-python-venv");
    let bin = dir.join("bin").join("python");
    if bin.exists() {
        return Some(bin);
    }
    if !run(Command::new(&python).arg("--version")) {
        eprintln!("SKIPPED: no {python} on PATH; the Python bindings' tests need Python 3.9 or later");
        return None;
    }
    if !run(Command::new(&python).args(["-m", "venv"]).arg(&dir)) {
        eprintln!("SKIPPED: `{python} -m venv` failed; install the venv module (Debian: python3-venv)");
        let _ = std::fs::remove_dir_all(&dir);
        return None;
    }
    Some(bin)
}

fn pip(python: &Path) -> Command {
    let mut c = Command::new(python);
    c.args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"]);
    c
}

#[test]
fn python_bindings_pass_pytest() {
    let started = Instant::now();
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let Some(mut python) = venv(&tmp) else { return };
    let tools = ["pytest", "numpy", "maturin>=1.5,<2"];
    if !run(pip(&python).args(tools)) {
        // A kept environment may be stale (its interpreter gone or upgraded): make it anew once.
        let _ = std::fs::remove_dir_all(tmp.join("qiku-python-venv"));
        let Some(fresh) = venv(&tmp) else { return };
        python = fresh;
        if !run(pip(&python).args(tools)) {
            eprintln!("SKIPPED: pip could not install pytest, numpy and maturin (no package index reachable?)");
            return;
        }
    }
    // The oracles: optional, their tests skip without them.
    if !run(pip(&python).args(["pyffish", "cchess"])) {
        eprintln!("note: pip could not install pyffish/cchess; the cross-check and benchmark comparisons skip");
    }
    let setup = started.elapsed();
    let build = Instant::now();
    // maturin runs from the environment's bin directory.
    let bin = python.parent().map(Path::to_path_buf).unwrap_or_default();
    let path = std::env::join_paths(
        std::iter::once(bin).chain(std::env::var_os("PATH").iter().flat_map(std::env::split_paths)),
    )
    .expect("PATH entries are joinable");
    let installed = run(pip(&python)
        .env("PATH", &path)
        .args(["--no-build-isolation", "--force-reinstall", "--no-deps"])
        .arg(crate_dir())
        .env("CARGO_TARGET_DIR", tmp.join("qiku-python-build")));
    assert!(installed, "pip install of the Python bindings failed (see the output above)");
    let build = build.elapsed();
    let tests = Instant::now();
    let passed = run(Command::new(&python)
        .args(["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider"])
        .arg(crate_dir().join("tests"))
        .current_dir(crate_dir()));
    println!(
        "python bindings: venv and packages {:.0} s, wheel build and install {:.0} s, pytest {:.0} s",
        setup.as_secs_f64(),
        build.as_secs_f64(),
        tests.elapsed().as_secs_f64()
    );
    assert!(passed, "pytest failed (see the output above)");
}
