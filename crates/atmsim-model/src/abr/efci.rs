//! EFCI marking: the binary ABR switch (TM 4.0 section 5.10.6, option a).
//!
//! A port with EFCI marking watches its ABR queue with hysteresis: it becomes congested when
//! a cell finds the queue at or above `high` cells, and stays congested until a cell finds it
//! at or below `low`. While congested it sets the EFCI bit of every ABR data cell (RM cells
//! are never marked). The destination keeps the EFCI bit of each VC's last data cell and sets
//! CI in the next backward RM cell it turns round; the source then cuts its rate by RDF, and
//! otherwise raises it by RIF x PCR. The switch reads and writes no RM cell.
//!
//! TM 4.0 does not say where in the port the bit is set. [`EfciMark::Arrival`] marks a cell
//! as the port takes it in (by the queue it finds), so the mark waits behind the whole queue
//! before it reaches the destination; [`EfciMark::Departure`] marks it as it leaves (by the
//! queue it leaves behind), so the destination learns the queue's state one queueing delay
//! sooner.

use super::{Invalid, RateControlScheme};
use crate::cell::Cell;
use atmsim_units::Cells;
use serde::{Deserialize, Serialize};

/// Where an EFCI port reads its queue and sets the bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EfciMark {
    /// As a cell enters the ABR queue, by the queue it finds.
    #[default]
    Arrival,
    /// As a cell leaves the port, by the ABR queue it leaves behind.
    Departure,
}

/// EFCI's table, `rate_control = { kind = "efci", high, low, mark }`: the thresholds of its
/// hysteresis [cells of the port's ABR queue] and where it marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EfciConfig {
    /// Congested (marking) from this ABR queue length on.
    #[serde(default = "defaults::high")]
    pub high: Cells,
    /// Marking stops at or below this queue length (`low <= high`).
    #[serde(default = "defaults::low")]
    pub low: Cells,
    /// Where the queue is read and the bit set: as a cell enters or as it leaves.
    #[serde(default = "defaults::mark")]
    pub mark: EfciMark,
}

mod defaults {
    use super::*;

    /// A third of the 1,500-cell buffer of An 1997's limited-buffer runs, which do not give
    /// their threshold: "a few hundred cells", as binary-switch studies of the time used.
    pub fn high() -> Cells {
        Cells(500)
    }
    /// Half of `high`: the hysteresis keeps a port from flapping on every cell.
    pub fn low() -> Cells {
        Cells(250)
    }
    /// Marking as a cell enters the queue: the simplest reading of TM 4.0, which does not
    /// say where in the port the bit is set.
    pub fn mark() -> EfciMark {
        EfciMark::Arrival
    }
}

impl Default for EfciConfig {
    fn default() -> Self {
        EfciConfig {
            high: defaults::high(),
            low: defaults::low(),
            mark: defaults::mark(),
        }
    }
}

impl RateControlScheme for Efci {
    type Config = EfciConfig;
    const EXAMPLE: &'static str = r#"{ kind = "efci", high = "500 cells", low = "250 cells" }"#;

    fn check(c: &EfciConfig) -> Result<(), Invalid> {
        if c.high.0 == 0 {
            return Err(Invalid {
                field: "high",
                message: "a threshold of 0 cells marks every cell; give at least 1 cell".into(),
            });
        }
        if c.low.0 > c.high.0 {
            return Err(Invalid {
                field: "low",
                message: format!("{} is above high ({}): allowed low <= high", c.low, c.high),
            });
        }
        Ok(())
    }

    fn new(c: &EfciConfig, _link_rate: f64) -> Self {
        Efci::new(*c)
    }

    #[inline]
    fn on_abr_cell(&mut self, _vc: usize, queue: u32, cell: &mut Cell) -> bool {
        Efci::on_abr_cell(self, queue, cell);
        false
    }

    #[inline]
    fn on_abr_departure(&mut self, queue: u32, cell: &mut Cell) {
        Efci::on_abr_departure(self, queue, cell);
    }

    const ABR_DEPARTURES: bool = true;
}

/// An EFCI port's state.
#[derive(Debug, Clone)]
pub struct Efci {
    cfg: EfciConfig,
    congested: bool,
    /// Data cells marked.
    pub marked: u64,
}

impl Efci {
    pub fn new(cfg: EfciConfig) -> Self {
        assert!(cfg.low <= cfg.high, "EFCI: low threshold above high");
        Efci {
            cfg,
            congested: false,
            marked: 0,
        }
    }

    pub fn config(&self) -> &EfciConfig {
        &self.cfg
    }

    /// Whether the port is marking.
    pub fn congested(&self) -> bool {
        self.congested
    }

    /// An ABR cell arrives to find `queue` cells in the ABR queue: if the port marks on
    /// arrival, update the congestion state and mark the cell.
    #[inline]
    pub fn on_abr_cell(&mut self, queue: u32, cell: &mut Cell) {
        if self.cfg.mark == EfciMark::Arrival {
            self.mark(queue, cell);
        }
    }

    /// An ABR cell leaves the port with `queue` cells behind it in the ABR queue: if the port
    /// marks on departure, update the congestion state and mark the cell.
    #[inline]
    pub fn on_abr_departure(&mut self, queue: u32, cell: &mut Cell) {
        if self.cfg.mark == EfciMark::Departure {
            self.mark(queue, cell);
        }
    }

    /// Updates the congestion state from `queue` and marks `cell` if it is data and the port
    /// is congested.
    fn mark(&mut self, queue: u32, cell: &mut Cell) {
        if queue >= self.cfg.high.0 {
            self.congested = true;
        } else if queue <= self.cfg.low.0 {
            self.congested = false;
        }
        if self.congested && cell.is_data() {
            cell.set_efci();
            self.marked += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::CellKind;
    use crate::ids::VcId;

    #[test]
    fn marks_data_cells_between_the_thresholds_with_hysteresis() {
        let mut e = Efci::new(EfciConfig {
            high: Cells(10),
            low: Cells(4),
            mark: EfciMark::Arrival,
        });
        let data = || Cell::data(VcId(0), 0, 0, 0);
        let marked = |e: &mut Efci, q| {
            let mut c = data();
            e.on_abr_cell(q, &mut c);
            c.is_efci()
        };
        assert!(!marked(&mut e, 9), "below high: not yet");
        assert!(marked(&mut e, 10), "at high: congested");
        assert!(marked(&mut e, 5), "between: still congested (hysteresis)");
        assert!(!marked(&mut e, 4), "at low: clear");
        assert!(!marked(&mut e, 8), "between, coming up: still clear");
        assert_eq!(e.marked, 2);
    }

    #[test]
    fn never_marks_rm_cells() {
        let mut e = Efci::new(EfciConfig {
            high: Cells(0),
            low: Cells(0),
            mark: EfciMark::Arrival,
        });
        let mut rm = Cell {
            kind: CellKind::BackwardRm,
            ..Cell::data(VcId(0), 0, 0, 0)
        };
        e.on_abr_cell(100, &mut rm);
        assert!(e.congested() && !rm.is_efci() && e.marked == 0);
    }

    #[test]
    fn marks_where_it_is_told_to() {
        let data = || Cell::data(VcId(0), 0, 0, 0);
        for mark in [EfciMark::Arrival, EfciMark::Departure] {
            let mut e = Efci::new(EfciConfig {
                high: Cells(10),
                low: Cells(4),
                mark,
            });
            let (mut a, mut d) = (data(), data());
            e.on_abr_cell(20, &mut a);
            e.on_abr_departure(20, &mut d);
            assert_eq!(a.is_efci(), mark == EfciMark::Arrival, "{mark:?}");
            assert_eq!(d.is_efci(), mark == EfciMark::Departure, "{mark:?}");
            assert!(e.congested() && e.marked == 1);
            // The other end's queue reading does not clear the state either.
            let mut c = data();
            match mark {
                EfciMark::Arrival => e.on_abr_departure(0, &mut c),
                EfciMark::Departure => e.on_abr_cell(0, &mut c),
            }
            assert!(e.congested() && !c.is_efci());
        }
    }
}
