//! How fast this machine generates tables, against the machine the plan's rates were measured
//! on: a short generation of a fixed table, timed, so that `qiku-tb plan` gives times for the
//! machine it runs on ([`Rates::at_speed`]). Memory and disk do not depend on the machine.

use super::driver::{generate_set, GenerateOptions};
use super::error::TbError;
use super::material::Material;
use super::plan::Rates;
use std::time::Instant;

/// The table generated to calibrate, with its smaller tables (KRvKR, KRvKA, KRAvK, KRvK) and the
/// rule-aware files of all five: 3.8 million entries, the solve, the light and full rule-aware
/// passes, compression and the writes, like most tables.
pub const CALIBRATION_MATERIAL: &str = "KRAvKR";

/// Seconds that generation takes on one thread at speed 1, the fastest of [`CALIBRATION_RUNS`]:
/// the project machine at its quickest on 2026-11-27, when the speeds of [`Rates::MEASURED`]
/// were measured (every table's time there scaled to this speed by a calibration just before
/// it).
pub const REFERENCE_SECONDS: f64 = 1.30;

/// Runs of the calibration; the fastest counts (a run slowed down by other work says little
/// about the machine).
pub const CALIBRATION_RUNS: usize = 2;

/// This machine's speed at generating tables.
#[derive(Copy, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Calibration {
    /// The fastest run's seconds (one thread, [`CALIBRATION_MATERIAL`]).
    pub seconds: f64,
    /// The reference's seconds over this machine's: 2 means twice as fast as the machine the
    /// rates were measured on.
    pub speed: f64,
}

/// Times the generation of [`CALIBRATION_MATERIAL`] in a temporary directory on one thread,
/// [`CALIBRATION_RUNS`] times: about 3 seconds at speed 1.
///
/// ```no_run
/// use qiku::tablebase::generate::{calibrate, estimate, Rates, Selection};
///
/// let speed = calibrate()?.speed;
/// let plan = Selection::new().max_pieces(4).resolve()?;
/// let (_, totals) = estimate(&plan, &Rates::MEASURED.at_speed(speed), 2, true);
/// println!("about {:.0} s on this machine", totals.seconds);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn calibrate() -> Result<Calibration, TbError> {
    let material: Material = CALIBRATION_MATERIAL.parse().expect("a valid material");
    let mut fastest = f64::INFINITY;
    for _ in 0..CALIBRATION_RUNS {
        let dir = tempfile::tempdir().map_err(|e| TbError::io(std::env::temp_dir(), e))?;
        let opts = GenerateOptions::new(dir.path()).threads(1);
        let start = Instant::now();
        generate_set(&[material], &opts)?;
        fastest = fastest.min(start.elapsed().as_secs_f64());
    }
    Ok(Calibration { seconds: fastest, speed: REFERENCE_SECONDS / fastest.max(1e-6) })
}

impl Rates {
    /// These rates on a machine `speed` times as fast as the one they were measured on
    /// ([`calibrate`]): every entries-per-second rate times `speed`; bytes unchanged.
    ///
    /// ```
    /// use qiku::tablebase::generate::Rates;
    ///
    /// let twice = Rates::MEASURED.at_speed(2.0);
    /// assert_eq!(twice.entries_per_second(2), 2.0 * Rates::MEASURED.entries_per_second(2));
    /// assert_eq!(twice.solver_bytes_per_entry, Rates::MEASURED.solver_bytes_per_entry);
    /// ```
    pub fn at_speed(&self, speed: f64) -> Rates {
        Rates {
            entries_per_cpu_second: self.entries_per_cpu_second * speed,
            rules_entries_per_cpu_second: self.rules_entries_per_cpu_second * speed,
            checks_rules_entries_per_cpu_second: self.checks_rules_entries_per_cpu_second * speed,
            light_rules_entries_per_cpu_second: self.light_rules_entries_per_cpu_second * speed,
            ..*self
        }
    }
}
