//! Stopping a generation from its progress receiver ([`qiku::Progress::stop_requested`]): the
//! table being solved is not written, those finished before are kept, and the next run finishes
//! the set.

use qiku::tablebase::generate::{generate_set, GenerateOptions};
use qiku::tablebase::{Material, TbError};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Asks for a stop once the phase `material` has reported its level `level`.
struct StopAt {
    material: &'static str,
    level: &'static str,
    phase: Mutex<String>,
    stop: AtomicBool,
}

impl qiku::Progress for StopAt {
    fn start(&self, label: &str, _total: u64) {
        *self.phase.lock().unwrap() = label.to_string();
    }
    fn advance(&self, _n: u64) {}
    fn message(&self, text: &str) {
        if self.phase.lock().unwrap().starts_with(self.material) && text == self.level {
            self.stop.store(true, Ordering::SeqCst);
        }
    }
    fn finish(&self) {}
    fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn a_stopped_generation_writes_only_the_tables_finished_before() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tb_stop");
    let _ = std::fs::remove_dir_all(&dir);
    let krka: Material = "KRvKA".parse().unwrap();
    let stop =
        Arc::new(StopAt { material: "KRvKA", level: "level 3", phase: Mutex::default(), stop: AtomicBool::new(false) });
    let err = generate_set(&[krka], &GenerateOptions::new(&dir).progress(stop.clone())).unwrap_err();
    assert!(matches!(&err, TbError::Stopped { material } if material == "KRvKA"), "{err}");
    assert_eq!(err.to_string(), "KRvKA: generation stopped before the table was finished");
    // KRvK (which KRvKA captures into) was finished first; nothing of KRvKA, no temporary file.
    assert_eq!(files(&dir), ["KRvK.qtb", "KRvK.qtr", "KRvK.qtw"]);
    // The next run keeps KRvK and makes KRvKA.
    let reports = generate_set(&[krka], &GenerateOptions::new(&dir)).unwrap();
    let kept: Vec<(&str, bool)> = reports.iter().map(|r| (r.material.as_str(), r.kept)).collect();
    assert_eq!(kept, [("KRvK", true), ("KRvKA", false)]);

    // Asked before anything: no table at all.
    let always = StopAt { material: "", level: "", phase: Mutex::default(), stop: AtomicBool::new(true) };
    let empty = dir.join("none");
    let err = generate_set(&[krka], &GenerateOptions::new(&empty).progress(Arc::new(always))).unwrap_err();
    assert!(matches!(&err, TbError::Stopped { material } if material == "KRvK"), "{err}");
    assert!(files(&empty).is_empty(), "{:?}", files(&empty));
}
