//! The access line between a TCP host and the edge router that holds its ABR source queue
//! (Kalyanaraman et al. 1996, section 4.1.2: on an ATM backbone "the end-systems are edge
//! routers which are not directly connected to TCP sources"), sans IO.
//!
//! Without it (the default) a segmented frame's cells enter the ABR source queue all at once.
//! With it, the host's frames cross a line of `cell_time` per cell, back to back in the order
//! they were segmented, and each cell enters the source queue when it has crossed: a frame's
//! first cell one cell time after the line took it (or after the previous frame's last cell),
//! the others one cell time apart. A window sent at once thus reaches the source queue at the
//! access line's rate, and the queue's policy (`source_drop`) decides per arriving cell, or,
//! for whole frames, at the frame's first cell, whether it fits.
//!
//! The caller (the network) schedules an event at [`AccessLine::push`]'s and
//! [`AccessLine::arrive`]'s times and puts the cells [`AccessLine::arrive`] returns into the
//! source queue.

use crate::cell::Cell;
use atmsim_engine::SimTime;
use std::collections::VecDeque;

/// A cell that has crossed the access line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arrival {
    /// The cell, EOM set on its frame's last cell only.
    pub cell: Cell,
    /// The first cell of its frame: the queue decides whether a whole frame fits now.
    pub first: bool,
    /// The cells of its frame.
    pub frame_cells: u32,
}

/// One host's access line into its edge router's ABR source queue.
#[derive(Debug, Clone)]
pub struct AccessLine {
    /// Time to carry one cell [ps].
    cell_time: SimTime,
    /// The frames on the line or waiting for it, in order: the frame's last cell (with its EOM)
    /// and its cell count.
    frames: VecDeque<(Cell, u32)>,
    /// Cells of the head frame that have crossed.
    crossed: u32,
    /// The head frame was refused whole at its first cell: its other cells are lost already.
    refused: bool,
    /// Cells on the line or waiting for it.
    pending: u64,
}

impl AccessLine {
    /// A line carrying one cell each `cell_time` (at least 1 ps).
    pub fn new(cell_time: SimTime) -> Self {
        AccessLine {
            cell_time: SimTime(cell_time.0.max(1)),
            frames: VecDeque::new(),
            crossed: 0,
            refused: false,
            pending: 0,
        }
    }

    /// The line's cell time.
    pub fn cell_time(&self) -> SimTime {
        self.cell_time
    }

    /// A frame of `cells` cells (at least 1; `last` its last cell, EOM set) is handed to the
    /// line at `now`; returns when its first cell arrives if the line was idle (the caller
    /// schedules [`AccessLine::arrive`] then), `None` if it follows the frames before it.
    pub fn push(&mut self, now: SimTime, last: Cell, cells: u32) -> Option<SimTime> {
        debug_assert!(cells > 0);
        let idle = self.frames.is_empty();
        self.frames.push_back((last, cells));
        self.pending += u64::from(cells);
        idle.then(|| now + self.cell_time)
    }

    /// The head cell crosses the line at `now`: the cell and, if another follows, when it
    /// arrives. Cells of a frame refused whole ([`AccessLine::refuse`]) still take the line's
    /// time but are not returned.
    pub fn arrive(&mut self, now: SimTime) -> (Option<Arrival>, Option<SimTime>) {
        let &(last, cells) = self
            .frames
            .front()
            .expect("an arrival on an idle access line");
        let i = self.crossed;
        let refused = self.refused;
        self.crossed += 1;
        self.pending -= 1;
        if self.crossed == cells {
            self.frames.pop_front();
            self.crossed = 0;
            self.refused = false;
        }
        let next = (!self.frames.is_empty()).then(|| now + self.cell_time);
        if refused {
            return (None, next);
        }
        let mut cell = last;
        if i + 1 < cells {
            cell.flags &= !Cell::EOM;
        }
        let arrival = Arrival {
            cell,
            first: i == 0,
            frame_cells: cells,
        };
        (Some(arrival), next)
    }

    /// The frame whose first cell just arrived is lost whole: its other cells, still to cross,
    /// are not returned.
    pub fn refuse(&mut self) {
        if self.crossed > 0 {
            self.refused = true;
        }
    }

    /// Cells still to cross that will be returned (those of a refused frame are lost already).
    pub fn waiting(&self) -> u64 {
        let lost = match self.frames.front() {
            Some(&(_, cells)) if self.refused => u64::from(cells - self.crossed),
            _ => 0,
        };
        self.pending - lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::VcId;

    fn last(frame: u32) -> Cell {
        Cell::data(VcId(0), frame, 0, Cell::EOM)
    }

    /// Drains the line from `at`, returning each arrival's time, frame, first flag and EOM.
    fn drain(line: &mut AccessLine, mut at: SimTime) -> Vec<(u64, u32, bool, bool)> {
        let mut out = Vec::new();
        loop {
            let (a, next) = line.arrive(at);
            if let Some(a) = a {
                out.push((at.0, a.cell.frame, a.first, a.cell.is_eom()));
            }
            match next {
                Some(t) => at = t,
                None => return out,
            }
        }
    }

    #[test]
    fn cells_cross_one_cell_time_apart_frames_back_to_back() {
        let mut line = AccessLine::new(SimTime(10));
        assert_eq!(line.push(SimTime(100), last(1), 3), Some(SimTime(110)));
        assert_eq!(
            line.push(SimTime(105), last(2), 2),
            None,
            "the line is busy"
        );
        assert_eq!(line.waiting(), 5);
        let got = drain(&mut line, SimTime(110));
        assert_eq!(
            got,
            vec![
                (110, 1, true, false),
                (120, 1, false, false),
                (130, 1, false, true),
                (140, 2, true, false),
                (150, 2, false, true),
            ]
        );
        assert_eq!(line.waiting(), 0);
        // Idle again: the next frame's first cell one cell time after it is handed over.
        assert_eq!(line.push(SimTime(500), last(3), 1), Some(SimTime(510)));
    }

    #[test]
    fn a_refused_frame_takes_the_line_but_returns_no_more_cells() {
        let mut line = AccessLine::new(SimTime(10));
        line.push(SimTime(0), last(1), 3);
        line.push(SimTime(0), last(2), 1);
        let (a, next) = line.arrive(SimTime(10));
        assert!(a.unwrap().first);
        line.refuse();
        assert_eq!(line.waiting(), 1, "only frame 2's cell is still to come");
        let got = drain(&mut line, next.unwrap());
        assert_eq!(
            got,
            vec![(40, 2, true, true)],
            "frame 2 after frame 1's line time"
        );
    }
}
