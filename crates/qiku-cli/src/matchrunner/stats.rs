//! Match statistics: score, Elo difference and its 95% error bar, and the likelihood of
//! superiority.
//!
//! The Elo difference is the logistic one, `-400 log10(1/s - 1)` for a score fraction `s`. The
//! error bar comes from the trinomial (win/draw/loss) variance of the per-game score,
//! `var = (W (1-s)^2 + D (1/2-s)^2 + L s^2) / N`; the 95% interval of the mean score is
//! `s +- 1.96 sqrt(var / N)`, mapped through the same formula, and half its width is reported.

/// Wins, draws and losses from one engine's point of view.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

/// An Elo estimate with its 95% error (half the interval's width; infinite when the interval
/// reaches a score of 0 or 1).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Elo {
    /// The Elo difference.
    pub diff: f64,
    /// Half the width of its 95% confidence interval.
    pub error95: f64,
}

/// Elo difference for a score fraction (infinite at 0 and 1).
pub fn elo_from_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        // `+ 0.0` turns the -0.0 of an even score into 0.0 (as JSON writes it too).
        -400.0 * (1.0 / s - 1.0).log10() + 0.0
    }
}

/// The error function (Abramowitz and Stegun 7.1.26, error below 1.5e-7).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t + 0.254_829_592)
            * t
            * (-x * x).exp();
    if x >= 0.0 {
        y
    } else {
        -y
    }
}

impl Tally {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points: a win 1, a draw 1/2.
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }

    /// Score fraction (0.5 with no games).
    pub fn score(&self) -> f64 {
        if self.games() == 0 {
            0.5
        } else {
            self.points() / self.games() as f64
        }
    }

    /// Elo difference and 95% error; `None` without games.
    pub fn elo(&self) -> Option<Elo> {
        let n = self.games() as f64;
        if n == 0.0 {
            return None;
        }
        let s = self.score();
        let var = (self.wins as f64 * (1.0 - s).powi(2)
            + self.draws as f64 * (0.5 - s).powi(2)
            + self.losses as f64 * s.powi(2))
            / n;
        let margin = 1.96 * (var / n).sqrt();
        let (lo, hi) = (elo_from_score(s - margin), elo_from_score(s + margin));
        Some(Elo { diff: elo_from_score(s), error95: (hi - lo) / 2.0 })
    }

    /// Likelihood of superiority: the probability that the engine is the stronger one, from
    /// wins and losses (draws carry no information).
    pub fn los(&self) -> f64 {
        let (w, l) = (self.wins as f64, self.losses as f64);
        if w == l {
            // Exactly even (the erf approximation gives 0.5000000005).
            return 0.5;
        }
        0.5 * (1.0 + erf((w - l) / (2.0 * (w + l)).sqrt()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_values() {
        assert_eq!(elo_from_score(0.5), 0.0);
        assert!((elo_from_score(0.75) - 190.848).abs() < 0.01);
        assert!((elo_from_score(0.25) + 190.848).abs() < 0.01);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
    }

    #[test]
    fn tally_statistics() {
        let t = Tally { wins: 30, draws: 40, losses: 30 };
        let e = t.elo().unwrap();
        assert_eq!(e.diff, 0.0);
        // var = (30 * 0.25 + 0 + 30 * 0.25) / 100 = 0.15; margin = 1.96 * sqrt(0.0015) = 0.07591
        let m = 1.96 * (0.15f64 / 100.0).sqrt();
        assert!((e.error95 - elo_from_score(0.5 + m)).abs() < 1e-9);
        assert!((e.error95 - 53.3).abs() < 0.2, "{}", e.error95);
        assert!((t.los() - 0.5).abs() < 1e-9);
        let t = Tally { wins: 60, draws: 20, losses: 20 };
        assert!((t.score() - 0.7).abs() < 1e-12);
        assert!(t.los() > 0.999);
        let all = Tally { wins: 10, draws: 0, losses: 0 };
        assert_eq!(all.elo().unwrap().diff, f64::INFINITY);
        assert_eq!(Tally::default().elo(), None);
        assert!((erf(1.0) - 0.842_700_79).abs() < 1e-6);
    }
}
