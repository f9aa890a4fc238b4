//! The time a set's generation has left, for its progress labels ("KRNvKR (120/630, about 3 min
//! left)"): the plan's estimates of the tables still to make, scaled by how long the tables made
//! so far took against theirs. One table's estimate may be off by half either way (its time
//! follows how many of its positions the solve decides), but over many tables the errors mostly
//! cancel, and the scale takes in the machine's speed without timing it first.

use super::material::{file_name, Material};
use super::plan::{self, Rates};
use super::select::Resolved;
use std::path::Path;
use std::time::Duration;

/// The scale is trusted once the tables made are this share of the plan's estimate, or once
/// they took [`ENOUGH_MEASURED`] (a long run's first tables are small, and its first percent
/// may be hours): before that no time is shown.
const ENOUGH_ESTIMATED: f64 = 0.01;

/// See [`ENOUGH_ESTIMATED`].
const ENOUGH_MEASURED: Duration = Duration::from_secs(60);

/// The plan's estimates of a work list and the tables made so far against theirs.
pub(crate) struct TimeLeft {
    /// Per table of the work list (in its order), the estimate's seconds still to come from it
    /// and every later table: 0 for a table whose file is there (kept, not made again).
    after: Vec<f64>,
    /// The estimates of the tables made so far, in seconds.
    estimated: f64,
    /// How long they took.
    took: Duration,
}

impl TimeLeft {
    /// For generating `plan` (in dependency order) into `dir` with `threads` worker threads; a
    /// table whose `.qtb` file is already there counts as kept.
    pub(crate) fn new(plan: &[Material], dir: &Path, threads: usize, rules: bool) -> TimeLeft {
        let resolved = Resolved { targets: plan.to_vec(), plan: plan.to_vec(), dead: Vec::new(), excluded: Vec::new() };
        let (rows, _) = plan::estimate(&resolved, &Rates::MEASURED, threads, rules);
        let mut after = vec![0.0; rows.len() + 1];
        for (i, row) in rows.iter().enumerate().rev() {
            let made = !dir.join(file_name(row.material)).exists();
            after[i] = after[i + 1] + if made { row.seconds } else { 0.0 };
        }
        TimeLeft { after, estimated: 0.0, took: Duration::ZERO }
    }

    /// Table `i` of the work list was made (not kept) in `took`.
    pub(crate) fn made(&mut self, i: usize, took: Duration) {
        self.estimated += self.after[i] - self.after[i + 1];
        self.took += took;
    }

    /// The time left before table `i` starts, its own included; `None` until enough has been
    /// measured to scale the estimates (or when nothing is left).
    pub(crate) fn before(&self, i: usize) -> Option<Duration> {
        let left = *self.after.get(i)?;
        let enough = self.estimated >= ENOUGH_ESTIMATED * self.after[0] || self.took >= ENOUGH_MEASURED;
        if !enough || self.estimated <= 0.0 || left <= 0.0 {
            return None;
        }
        Some(self.took.mul_f64(left / self.estimated))
    }
}

/// A time left in words, rounded as a person would say it: "about 40 s", "about 3 min", "about
/// 2.5 h", "about 5.7 days".
pub(crate) fn about(left: Duration) -> String {
    let s = left.as_secs_f64();
    if s < 90.0 {
        format!("about {:.0} s", s.max(1.0))
    } else if s < 90.0 * 60.0 {
        format!("about {:.0} min", s / 60.0)
    } else if s < 48.0 * 3600.0 {
        format!("about {:.1} h", s / 3600.0)
    } else {
        format!("about {:.1} days", s / 86400.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn materials(names: &[&str]) -> Vec<Material> {
        names.iter().map(|n| n.parse().unwrap()).collect()
    }

    #[test]
    fn the_estimates_left_are_scaled_by_the_measured_ones() {
        let dir = tempfile::tempdir().unwrap();
        let plan = materials(&["KNvK", "KRvK", "KRvKN", "KRvKR", "KRNvK", "KRNvKR"]);
        let mut t = TimeLeft::new(&plan, dir.path(), 1, true);
        // Nothing measured: nothing said.
        assert_eq!(t.before(0), None);
        let share = |i: usize| (t.after[i] - t.after[i + 1]) / t.after[0];
        // KRNvKR is almost all of the work by the plan.
        assert!(share(5) > 0.9, "{:?}", t.after);
        // The first table alone is not enough to go by.
        t.made(0, Duration::from_millis(1));
        assert_eq!(t.before(1), None);
        // The tables before KRNvKR took twice their estimate: it is expected to take twice its
        // own.
        let estimated: f64 = t.after[0] - t.after[5];
        let took = Duration::from_secs_f64(2.0 * estimated);
        let mut t = TimeLeft::new(&plan, dir.path(), 1, true);
        for i in 0..5 {
            t.made(i, took / 5);
        }
        let scale = took.as_secs_f64() / estimated;
        let left = t.before(5).unwrap().as_secs_f64();
        assert!((left - scale * (t.after[5] - t.after[6])).abs() < 1e-6 * left.max(1.0), "{left}");
        // After the last table nothing is left.
        assert_eq!(t.before(6), None);
    }

    #[test]
    fn a_table_already_there_adds_no_time() {
        let dir = tempfile::tempdir().unwrap();
        let plan = materials(&["KNvK", "KRvK", "KRvKN"]);
        let all = TimeLeft::new(&plan, dir.path(), 1, true);
        std::fs::write(dir.path().join(file_name(plan[2])), b"").unwrap();
        let kept = TimeLeft::new(&plan, dir.path(), 1, true);
        assert_eq!(kept.after[2], 0.0);
        assert!(all.after[2] > 0.0);
        assert!((kept.after[0] - (all.after[0] - all.after[2])).abs() < 1e-9, "{:?} {:?}", kept.after, all.after);
    }

    #[test]
    fn times_left_read_as_a_person_says_them() {
        assert_eq!(about(Duration::from_millis(300)), "about 1 s");
        assert_eq!(about(Duration::from_secs(42)), "about 42 s");
        assert_eq!(about(Duration::from_secs(200)), "about 3 min");
        assert_eq!(about(Duration::from_secs(9000)), "about 2.5 h");
        assert_eq!(about(Duration::from_secs(5 * 86400 + 60_000)), "about 5.7 days");
    }
}
