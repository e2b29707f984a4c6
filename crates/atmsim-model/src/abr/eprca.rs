//! EPRCA: the Enhanced Proportional Rate Control Algorithm (Roberts, ATM Forum 94-0735R1), as
//! Jain et al. describe it in their 1996 survey ("Congestion control and traffic management
//! in ATM networks: recent advances and a survey", Computer Networks and ISDN Systems 28(13)).
//! Per output port, without I/O; docs/scenarios.md describes it beside the other schemes.
//!
//! - **MACR.** The port keeps a mean allowed cell rate: a running average of the CCR fields
//!   of the forward RM cells that pass it, `MACR <- (1 - AV) MACR + AV CCR` (AV = 1/16). While
//!   the port is congested only CCRs below MACR enter the average, so the rates of the VCs
//!   being pushed down do not hold it up. (atmsim starts MACR at the first CCR it sees.)
//! - **Congestion** is read from the port's ABR queue when an RM cell passes: congested above
//!   QT cells, very congested above DQT cells.
//! - **Feedback** goes into backward RM cells (the ER only ever lowered):
//!   - not congested: nothing, so every source keeps raising its rate by RIF x PCR per RM
//!     cell (the proportional-rate part of the scheme);
//!   - congested: `ER <- min(ER, DPF x MACR)` (DPF = 7/8) for the VCs whose CCR is above
//!     DPF x MACR only ("intelligent marking": the slower VCs keep rising);
//!   - very congested: `ER <- min(ER, MRF x MACR)` (MRF = 1/4) for every VC, and CI set, so
//!     the sources also cut their rate by RDF.
//!
//! The ER field carries all of the port's feedback to an explicit-rate source; CI (very
//! congested only, `set_ci`) is the one binary signal. The port marks no data cell.

use super::{Invalid, RateControlScheme};
use crate::cell::RmFields;
use atmsim_units::Cells;
use serde::{Deserialize, Serialize};

/// EPRCA's table: `rate_control = { kind = "eprca", ... }`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EprcaConfig {
    /// AV: the weight of a new CCR in MACR's running average (the sources: 1/16).
    #[serde(default = "defaults::av")]
    pub av: f64,
    /// DPF: the down pressure factor; the fair share is DPF x MACR (the sources: 7/8).
    #[serde(default = "defaults::dpf")]
    pub dpf: f64,
    /// MRF: the major reduction factor; very congested, ER <= MRF x MACR (the sources: 1/4).
    #[serde(default = "defaults::mrf")]
    pub mrf: f64,
    /// QT: congested above this ABR queue length.
    #[serde(default = "defaults::qt")]
    pub qt: Cells,
    /// DQT: very congested above this ABR queue length (`qt <= dqt`).
    #[serde(default = "defaults::dqt")]
    pub dqt: Cells,
    /// Whether a very congested port sets CI in the backward RM cells too.
    #[serde(default = "defaults::set_ci")]
    pub set_ci: bool,
}

mod defaults {
    use super::*;

    /// Jain et al. 1996: "the suggested values of alpha and DPF are 1/16 and 7/8".
    pub fn av() -> f64 {
        1.0 / 16.0
    }
    pub fn dpf() -> f64 {
        7.0 / 8.0
    }
    /// The major reduction factor of the EPRCA proposal.
    pub fn mrf() -> f64 {
        1.0 / 4.0
    }
    /// Not in the sources: FMMRA's default, about ERICA+'s target queue on an OC-3.
    pub fn qt() -> Cells {
        Cells(200)
    }
    /// Not in the sources: FMMRA's default, two thirds of a 1,500-cell buffer.
    pub fn dqt() -> Cells {
        Cells(1_000)
    }
    pub fn set_ci() -> bool {
        true
    }
}

impl Default for EprcaConfig {
    fn default() -> Self {
        EprcaConfig {
            av: defaults::av(),
            dpf: defaults::dpf(),
            mrf: defaults::mrf(),
            qt: defaults::qt(),
            dqt: defaults::dqt(),
            set_ci: defaults::set_ci(),
        }
    }
}

/// One port's EPRCA state.
#[derive(Debug, Clone)]
pub struct Eprca {
    cfg: EprcaConfig,
    /// The mean allowed cell rate [cells/s]; `None` until a forward RM cell has passed.
    macr: Option<f64>,
    /// Backward RM cells whose ER this port lowered while congested (intelligent marking).
    pub marked: u64,
    /// Backward RM cells that found the port very congested.
    pub major_reductions: u64,
}

impl Eprca {
    /// The mean allowed cell rate, once a forward RM cell has passed.
    pub fn macr(&self) -> Option<f64> {
        self.macr
    }

    /// The fair share DPF x MACR.
    pub fn fair_share(&self) -> Option<f64> {
        self.macr.map(|m| self.cfg.dpf * m)
    }
}

impl RateControlScheme for Eprca {
    type Config = EprcaConfig;
    const EXAMPLE: &'static str = r#"{ kind = "eprca", av = 0.0625, dpf = 0.875, mrf = 0.25, qt = "200 cells", dqt = "1000 cells" }"#;

    fn check(c: &EprcaConfig) -> Result<(), Invalid> {
        if !(c.av > 0.0 && c.av <= 1.0) {
            return Err(Invalid {
                field: "av",
                message: format!("{}: allowed 0 < av <= 1 (the sources: 1/16)", c.av),
            });
        }
        for (field, x, was) in [("dpf", c.dpf, "7/8"), ("mrf", c.mrf, "1/4")] {
            if !(x > 0.0 && x <= 1.0) {
                return Err(Invalid {
                    field,
                    message: format!("{x}: allowed 0 < {field} <= 1 (the sources: {was})"),
                });
            }
        }
        if c.qt.0 > c.dqt.0 {
            return Err(Invalid {
                field: "qt",
                message: format!("{} is above dqt ({}): allowed qt <= dqt", c.qt, c.dqt),
            });
        }
        Ok(())
    }

    fn new(c: &EprcaConfig, _link_rate: f64) -> Self {
        Eprca {
            cfg: *c,
            macr: None,
            marked: 0,
            major_reductions: 0,
        }
    }

    #[inline]
    fn on_forward_rm(&mut self, _vc: usize, queue: u32, fields: &mut RmFields) {
        let ccr = fields.ccr;
        self.macr = Some(match self.macr {
            None => ccr,
            Some(m) if queue <= self.cfg.qt.0 || ccr < m => m + self.cfg.av * (ccr - m),
            Some(m) => m,
        });
    }

    #[inline]
    fn on_backward_rm(&mut self, _vc: usize, queue: u32, fields: &mut RmFields) {
        if queue > self.cfg.dqt.0 {
            self.major_reductions += 1;
            if let Some(m) = self.macr {
                fields.er = fields.er.min(self.cfg.mrf * m);
            }
            if self.cfg.set_ci {
                fields.ci = true;
            }
        } else if queue > self.cfg.qt.0 {
            if let Some(fair) = self.fair_share() {
                if fields.ccr > fair && fair < fields.er {
                    fields.er = fair;
                    self.marked += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rm(ccr: f64, er: f64) -> RmFields {
        RmFields {
            er,
            ccr,
            mcr: 0.0,
            ci: false,
            ni: false,
            bn: false,
        }
    }

    fn port() -> Eprca {
        Eprca::new(&EprcaConfig::default(), 100_000.0)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
    }

    #[test]
    fn macr_is_the_running_average_of_forward_ccrs() {
        let mut e = port();
        assert_eq!(e.macr(), None);
        // The first CCR starts the average; then MACR += (CCR - MACR) / 16, by hand:
        // 16,000 -> 16,000 + (32,000 - 16,000) / 16 = 17,000
        //        -> 17,000 + (1,000 - 17,000) / 16 = 16,000.
        for (ccr, want) in [(16_000.0, 16_000.0), (32_000.0, 17_000.0), (1_000.0, 16_000.0)] {
            e.on_forward_rm(0, 0, &mut rm(ccr, 1e9));
            assert!(close(e.macr().unwrap(), want), "{:?} != {want}", e.macr());
        }
        // Congested (queue above QT): only CCRs below MACR count.
        e.on_forward_rm(0, 201, &mut rm(48_000.0, 1e9));
        assert!(close(e.macr().unwrap(), 16_000.0), "a higher CCR is left out");
        e.on_forward_rm(0, 201, &mut rm(0.0, 1e9));
        assert!(close(e.macr().unwrap(), 15_000.0), "a lower one counts");
        // At QT exactly the port is not congested yet.
        e.on_forward_rm(0, 200, &mut rm(31_000.0, 1e9));
        assert!(close(e.macr().unwrap(), 16_000.0));
    }

    #[test]
    fn congested_marks_only_the_vcs_above_dpf_times_macr() {
        let mut e = port();
        e.on_forward_rm(0, 0, &mut rm(40_000.0, 1e9)); // MACR 40,000: fair share 35,000
        let fair = 35_000.0;
        // Not congested: the ER passes unchanged.
        let mut c = rm(90_000.0, 100_000.0);
        e.on_backward_rm(0, 200, &mut c);
        assert_eq!((c.er, c.ci), (100_000.0, false));
        // Congested: a VC above the fair share is brought down to it ...
        let mut c = rm(50_000.0, 100_000.0);
        e.on_backward_rm(0, 201, &mut c);
        assert!(close(c.er, fair));
        assert!(!c.ci, "no CI when only congested");
        // ... one at or below it is left alone (it may keep rising) ...
        for ccr in [fair, 20_000.0] {
            let mut c = rm(ccr, 100_000.0);
            e.on_backward_rm(0, 900, &mut c);
            assert_eq!(c.er, 100_000.0, "CCR {ccr}");
        }
        // ... and an ER already below the fair share is never raised.
        let mut c = rm(50_000.0, 10_000.0);
        e.on_backward_rm(0, 500, &mut c);
        assert_eq!(c.er, 10_000.0);
        assert_eq!(e.marked, 1);
    }

    #[test]
    fn very_congested_cuts_every_vc_to_mrf_times_macr_and_sets_ci() {
        let mut e = port();
        e.on_forward_rm(0, 0, &mut rm(40_000.0, 1e9));
        for ccr in [1_000.0, 40_000.0, 90_000.0] {
            let mut c = rm(ccr, 100_000.0);
            e.on_backward_rm(0, 1_001, &mut c);
            assert!(close(c.er, 10_000.0), "CCR {ccr}: ER {}", c.er);
            assert!(c.ci);
        }
        assert_eq!(e.major_reductions, 3);
        // Without set_ci only the ER says it.
        let mut e = Eprca::new(
            &EprcaConfig {
                set_ci: false,
                ..EprcaConfig::default()
            },
            100_000.0,
        );
        e.on_forward_rm(0, 0, &mut rm(40_000.0, 1e9));
        let mut c = rm(40_000.0, 100_000.0);
        e.on_backward_rm(0, 5_000, &mut c);
        assert!(close(c.er, 10_000.0) && !c.ci);
        // Before any forward RM cell there is no MACR: the ER passes, CI is still set.
        let mut e = port();
        let mut c = rm(40_000.0, 100_000.0);
        e.on_backward_rm(0, 5_000, &mut c);
        assert_eq!(c.er, 100_000.0);
        assert!(c.ci);
    }

    #[test]
    fn check_names_the_field_and_the_range() {
        assert!(Eprca::check(&EprcaConfig::default()).is_ok());
        let bad = |c: EprcaConfig| Eprca::check(&c).unwrap_err();
        let d = EprcaConfig::default();
        assert_eq!(bad(EprcaConfig { av: 0.0, ..d }).field, "av");
        let e = bad(EprcaConfig { dpf: 1.5, ..d });
        assert_eq!(e.field, "dpf");
        assert!(e.message.contains("allowed 0 < dpf <= 1"), "{}", e.message);
        assert_eq!(bad(EprcaConfig { mrf: 0.0, ..d }).field, "mrf");
        let e = bad(EprcaConfig {
            qt: Cells(2_000),
            ..d
        });
        assert_eq!(e.field, "qt");
        assert!(e.message.contains("above dqt"), "{}", e.message);
        // The table's defaults are the sources' values.
        let c: EprcaConfig = serde_json::from_str("{}").unwrap();
        assert_eq!(c, d);
        assert_eq!((c.av, c.dpf, c.mrf), (0.0625, 0.875, 0.25));
        assert!(serde_json::from_str::<EprcaConfig>(r#"{"dfp": 0.5}"#).is_err());
    }
}
