//! EFCI marking: the binary ABR switch (TM 4.0 section 5.10.6, option a).
//!
//! A port with EFCI marking watches its ABR queue with hysteresis: it becomes congested when
//! a cell arrives to find the queue at or above `high` cells, and stays congested until a
//! cell arrives to find it at or below `low`. While congested it sets the EFCI bit of every
//! ABR data cell it takes in (RM cells are never marked). The destination keeps the EFCI bit
//! of each VC's last data cell and sets CI in the next backward RM cell it turns round; the
//! source then cuts its rate by RDF, and otherwise raises it by RIF x PCR. The switch reads
//! and writes no RM cell.

use crate::cell::Cell;

/// The thresholds of an EFCI port [cells of its ABR queue].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EfciConfig {
    /// Congested from this queue length on.
    pub high: u32,
    /// No longer congested at or below this queue length (`low <= high`).
    pub low: u32,
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

    /// An ABR cell arrives to find `queue` cells in the ABR queue: update the congestion
    /// state and mark the cell if it is data and the port is congested.
    #[inline]
    pub fn on_abr_cell(&mut self, queue: u32, cell: &mut Cell) {
        if queue >= self.cfg.high {
            self.congested = true;
        } else if queue <= self.cfg.low {
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
        let mut e = Efci::new(EfciConfig { high: 10, low: 4 });
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
        let mut e = Efci::new(EfciConfig { high: 0, low: 0 });
        let mut rm = Cell {
            kind: CellKind::BackwardRm,
            ..Cell::data(VcId(0), 0, 0, 0)
        };
        e.on_abr_cell(100, &mut rm);
        assert!(e.congested() && !rm.is_efci() && e.marked == 0);
    }
}
