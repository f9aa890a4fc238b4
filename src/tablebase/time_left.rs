//! The time a set's generation has left, for its progress labels ("KRNvKR (120/630, about 3 min
//! left)"). Two estimates of the tables still to make (those whose file is already there left
//! out), averaged when both are known:
//! - the plan's, at the machine's speed timed before the run ([`super::calibrate`]): what `qiku-tb
//!   plan` says, from the first table on;
//! - the plan's scaled by how long the most recent tables took against theirs (those making up
//!   the last tenth of the estimated work made), once a percent of the work is made or a minute
//!   has passed: this follows the machine if it slows down or speeds up during the run.
//!
//! One table's estimate may be off by half either way (its time follows how many of its
//! positions the solve decides), and a set's tables come in runs of one kind (the rook's, mostly
//! decided and slower, after the cannon's and the horse's), which the recent tables' scale
//! follows late. Replayed over the tables' measured times of families A, B and C
//! (docs/TABLEBASES.md, "Progress"), the average was off by 7% to 12% of the time actually left
//! (on average over the tables), the plan alone by 6% to 17%, the scaled estimate alone by 15% to
//! 29%.

use super::material::{file_name, Material};
use super::plan::{self, Rates};
use super::select::Resolved;
use std::path::Path;
use std::time::Duration;

/// The measured scale is trusted once the tables made are this share of the plan's estimate, or
/// once they took [`ENOUGH_MEASURED`] (a long run's first tables are small, and its first percent
/// may be hours).
const ENOUGH_ESTIMATED: f64 = 0.01;

/// See [`ENOUGH_ESTIMATED`].
const ENOUGH_MEASURED: Duration = Duration::from_secs(60);

/// The measured scale is that of the most recent tables making up this share of the estimated
/// work made so far.
const WINDOW: f64 = 0.1;

/// The plan's estimates of a work list and the tables made so far against theirs.
pub(crate) struct TimeLeft {
    /// Per table of the work list (in its order), the estimate's seconds, at the project
    /// machine's speed, still to come from it and every later table: 0 for a table whose file is
    /// there (kept, not made again).
    after: Vec<f64>,
    /// This machine's speed against the project machine's, when timed.
    speed: Option<f64>,
    /// The tables made so far, in order: their estimates and how long they took, in seconds.
    made: Vec<(f64, f64)>,
}

impl TimeLeft {
    /// For generating `plan` (in dependency order) into `dir` with `threads` worker threads on a
    /// machine of `speed` (see the module doc); a table whose `.qtb` file is already there counts
    /// as kept.
    pub(crate) fn new(plan: &[Material], dir: &Path, threads: usize, rules: bool, speed: Option<f64>) -> TimeLeft {
        let resolved = Resolved { targets: plan.to_vec(), plan: plan.to_vec(), dead: Vec::new(), excluded: Vec::new() };
        let (rows, _) = plan::estimate(&resolved, &Rates::MEASURED, threads, rules);
        let mut after = vec![0.0; rows.len() + 1];
        for (i, row) in rows.iter().enumerate().rev() {
            let made = !dir.join(file_name(row.material)).exists();
            after[i] = after[i + 1] + if made { row.seconds } else { 0.0 };
        }
        let speed = speed.filter(|s| s.is_finite() && *s > 0.0);
        TimeLeft { after, speed, made: Vec::new() }
    }

    /// Table `i` of the work list was made (not kept) in `took`.
    pub(crate) fn made(&mut self, i: usize, took: Duration) {
        self.made.push((self.after[i] - self.after[i + 1], took.as_secs_f64()));
    }

    /// How long the most recent tables took against their estimates, once enough is made.
    fn scale(&self) -> Option<f64> {
        let (all_estimated, all_took) = self.made.iter().fold((0.0, 0.0), |(e, t), &(me, mt)| (e + me, t + mt));
        let enough = all_estimated >= ENOUGH_ESTIMATED * self.after[0] || all_took >= ENOUGH_MEASURED.as_secs_f64();
        if !enough || all_estimated <= 0.0 {
            return None;
        }
        let (mut estimated, mut took) = (0.0, 0.0);
        for &(e, t) in self.made.iter().rev() {
            estimated += e;
            took += t;
            if estimated >= WINDOW * all_estimated {
                break;
            }
        }
        (estimated > 0.0).then(|| took / estimated)
    }

    /// The time left before table `i` starts, its own included; `None` when nothing is known to
    /// go by yet (no speed, and not enough made), or nothing is left.
    pub(crate) fn before(&self, i: usize) -> Option<Duration> {
        let left = *self.after.get(i)?;
        if left <= 0.0 {
            return None;
        }
        let planned = self.speed.map(|speed| left / speed);
        let measured = self.scale().map(|scale| left * scale);
        let seconds = match (planned, measured) {
            (Some(p), Some(m)) => (p + m) / 2.0,
            (p, m) => p.or(m)?,
        };
        Some(Duration::from_secs_f64(seconds.min(1e12)))
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

    /// The estimate of table `i` alone, in seconds at the project machine's speed.
    fn own(t: &TimeLeft, i: usize) -> f64 {
        t.after[i] - t.after[i + 1]
    }

    #[test]
    fn the_estimates_left_are_scaled_by_the_recent_tables() {
        let dir = tempfile::tempdir().unwrap();
        let plan = materials(&["KNvK", "KRvK", "KRvKN", "KRvKR", "KRNvK", "KRNvKR"]);
        let mut t = TimeLeft::new(&plan, dir.path(), 1, true, None);
        // Nothing measured, no speed: nothing said.
        assert_eq!(t.before(0), None);
        // KRNvKR is almost all of the work by the plan.
        assert!(own(&t, 5) > 0.9 * t.after[0], "{:?}", t.after);
        // The first table alone is not enough to go by.
        t.made(0, Duration::from_millis(1));
        assert_eq!(t.before(1), None);
        // The tables before KRNvKR each took twice their estimate: it is expected to take twice
        // its own.
        let mut t = TimeLeft::new(&plan, dir.path(), 1, true, None);
        for i in 0..5 {
            t.made(i, Duration::from_secs_f64(2.0 * own(&t, i)));
        }
        let left = t.before(5).unwrap().as_secs_f64();
        assert!((left - 2.0 * own(&t, 5)).abs() < 1e-6 * left, "{left}");
        // The most recent tables count, not the first ones: the last took 3 times its estimate.
        let mut t = TimeLeft::new(&plan, dir.path(), 1, true, None);
        for i in 0..4 {
            t.made(i, Duration::from_secs_f64(own(&t, i)));
        }
        t.made(4, Duration::from_secs_f64(3.0 * own(&t, 4)));
        assert!(own(&t, 4) >= WINDOW * (t.after[0] - t.after[5]), "{:?}", t.after);
        let left = t.before(5).unwrap().as_secs_f64();
        assert!((left - 3.0 * own(&t, 5)).abs() < 1e-6 * left, "{left}");
        // After the last table nothing is left.
        assert_eq!(t.before(6), None);
    }

    #[test]
    fn with_a_speed_the_plan_speaks_from_the_start_and_is_averaged_with_the_measured() {
        let dir = tempfile::tempdir().unwrap();
        let plan = materials(&["KNvK", "KRvK", "KRvKN", "KRvKR", "KRNvK", "KRNvKR"]);
        let mut t = TimeLeft::new(&plan, dir.path(), 1, true, Some(2.0));
        // From the first table: the plan's estimate on a machine twice as fast.
        let left = t.before(0).unwrap().as_secs_f64();
        assert!((left - t.after[0] / 2.0).abs() < 1e-6 * left, "{left}");
        // Once enough is made, the mean of that and the measured scale's (here 1.5 times the
        // estimates).
        for i in 0..5 {
            t.made(i, Duration::from_secs_f64(1.5 * own(&t, i)));
        }
        let left = t.before(5).unwrap().as_secs_f64();
        let expected = (own(&t, 5) / 2.0 + 1.5 * own(&t, 5)) / 2.0;
        assert!((left - expected).abs() < 1e-6 * left, "{left} {expected}");
        // A speed that means nothing is not used.
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(TimeLeft::new(&plan, dir.path(), 1, true, Some(bad)).before(0), None);
        }
    }

    #[test]
    fn a_table_already_there_adds_no_time() {
        let dir = tempfile::tempdir().unwrap();
        let plan = materials(&["KNvK", "KRvK", "KRvKN"]);
        let all = TimeLeft::new(&plan, dir.path(), 1, true, None);
        std::fs::write(dir.path().join(file_name(plan[2])), b"").unwrap();
        let kept = TimeLeft::new(&plan, dir.path(), 1, true, None);
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
