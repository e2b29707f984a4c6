//! A constant-delay FIFO: items enter with their exit time and leave in order.
//!
//! A link with a fixed propagation delay never reorders, so the cells on it can wait in a
//! ring buffer ([`Ring`]), with only the head's exit time known to the event queue. The owner
//! schedules one wake-up when [`Lane::push`] says the lane was empty, and after each
//! [`Lane::pop`] schedules the next head's time if there is one.

use crate::queue::{EventQueue, LineId};
use crate::ring::Ring;
use crate::time::SimTime;

/// A FIFO of `(exit time, item)` with non-decreasing exit times, in a [`Ring`].
#[derive(Debug, Clone)]
pub struct Lane<T: Copy> {
    items: Ring<(SimTime, T)>,
}

impl<T: Copy> Default for Lane<T> {
    fn default() -> Self {
        Lane { items: Ring::new() }
    }
}

impl<T: Copy> Lane<T> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an item leaving at `exit`. Returns `true` if the lane was empty, i.e. the caller
    /// must schedule a wake-up at `exit`.
    #[inline]
    pub fn push(&mut self, exit: SimTime, item: T) -> bool {
        debug_assert!(
            self.items.back().is_none_or(|(t, _)| *t <= exit),
            "lane exit times must not decrease"
        );
        let was_empty = self.items.is_empty();
        self.items.push_back((exit, item));
        was_empty
    }

    /// Removes the head item. Returns it with the exit time of the new head, if any, for the
    /// caller to schedule.
    #[inline]
    pub fn pop(&mut self) -> Option<(T, Option<SimTime>)> {
        let (_, item) = self.items.pop_front()?;
        Some((item, self.items.front().map(|(t, _)| *t)))
    }

    /// Adds an item leaving at `exit` and, if the lane was empty, schedules `wake` then.
    #[inline]
    pub fn push_waking<E: Copy>(
        &mut self,
        exit: SimTime,
        item: T,
        queue: &mut EventQueue<E>,
        wake: E,
    ) {
        if self.push(exit, item) {
            queue.schedule(exit, wake);
        }
    }

    /// [`Lane::push_waking`], the wake-up scheduled on `line` of the queue when it falls that
    /// line's delay after `now` ([`EventQueue::schedule_on`]): a short link's lane, empty
    /// at most pushes, with the queue's line of its cell time plus its delay.
    #[inline]
    pub fn push_waking_on<E: Copy>(
        &mut self,
        exit: SimTime,
        item: T,
        queue: &mut EventQueue<E>,
        line: LineId,
        wake: E,
    ) {
        if self.push(exit, item) {
            queue.schedule_on(line, exit, wake);
        }
    }

    /// Removes the head item and schedules `wake` at the new head's exit time, if any.
    #[inline]
    pub fn pop_waking<E: Copy>(&mut self, queue: &mut EventQueue<E>, wake: E) -> Option<T> {
        let (item, next) = self.pop()?;
        if let Some(t) = next {
            queue.schedule(t, wake);
        }
        Some(item)
    }

    /// Removes the head item of a lane the caller knows holds one (its wake-up came), and
    /// schedules `wake` at the new head's exit time, on `line` of the queue when it falls
    /// that line's delay after `now` ([`EventQueue::schedule_on`]): a lane whose items leave
    /// one cell time apart, with the queue's line of that cell time. Returns the item itself,
    /// without an `Option` (see [`Ring::take_front`]).
    ///
    /// # Panics
    /// If the lane is empty.
    #[inline]
    pub fn take_waking_on<E: Copy>(
        &mut self,
        queue: &mut EventQueue<E>,
        line: LineId,
        wake: E,
    ) -> T {
        let (_, item) = self.items.take_front();
        if let Some((t, _)) = self.items.front() {
            queue.schedule_on(line, *t, wake);
        }
        item
    }

    /// Exit time of the head item.
    #[inline]
    pub fn head_time(&self) -> Option<SimTime> {
        self.items.front().map(|(t, _)| *t)
    }

    /// Exit time of the last item (the latest of all).
    #[inline]
    pub fn tail_time(&self) -> Option<SimTime> {
        self.items.back().map(|(t, _)| *t)
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.items.iter().map(|(_, x)| x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wakes_once_per_busy_period() {
        let mut lane = Lane::new();
        assert!(lane.push(SimTime(10), 'a'));
        assert!(!lane.push(SimTime(12), 'b'));
        assert_eq!(lane.pop(), Some(('a', Some(SimTime(12)))));
        assert_eq!(lane.pop(), Some(('b', None)));
        assert_eq!(lane.pop(), None);
        assert!(lane.push(SimTime(20), 'c'));
    }

    #[test]
    fn waking_variants_keep_one_pending_event() {
        let mut q = EventQueue::new();
        let mut lane = Lane::new();
        lane.push_waking(SimTime(5), 'a', &mut q, 1);
        lane.push_waking(SimTime(7), 'b', &mut q, 1);
        assert_eq!(q.len(), 1);
        assert_eq!(q.pop(), Some((SimTime(5), 1)));
        assert_eq!(lane.pop_waking(&mut q, 1), Some('a'));
        assert_eq!(q.pop(), Some((SimTime(7), 1)));
        assert_eq!(lane.pop_waking(&mut q, 1), Some('b'));
        assert!(q.is_empty());
    }

    #[test]
    fn a_wake_up_one_delay_ahead_goes_on_the_line() {
        let mut q = EventQueue::new();
        let line = q.line(SimTime(2));
        let mut lane = Lane::new();
        lane.push_waking(SimTime(5), 'a', &mut q, 1);
        lane.push_waking(SimTime(7), 'b', &mut q, 1);
        lane.push_waking(SimTime(10), 'c', &mut q, 1);
        q.schedule(SimTime(7), 2);
        assert_eq!(q.pop(), Some((SimTime(5), 1)));
        // 'b' leaves 2 after now: on the line, scheduled after event 2, so it runs after it.
        assert_eq!(lane.take_waking_on(&mut q, line, 1), 'a');
        assert_eq!(q.pop(), Some((SimTime(7), 2)));
        assert_eq!(q.pop(), Some((SimTime(7), 1)));
        // 'c' leaves 3 after now: in the wheel.
        assert_eq!(lane.take_waking_on(&mut q, line, 1), 'b');
        assert_eq!(q.pop(), Some((SimTime(10), 1)));
        assert_eq!(lane.take_waking_on(&mut q, line, 1), 'c');
        assert!(q.is_empty());
    }

    #[test]
    fn a_push_onto_an_empty_lane_wakes_on_the_line_in_the_same_order() {
        // The same pushes with and without the line: the same events, in the same order.
        let run = |with_line: bool| {
            let mut q = EventQueue::new();
            let line = if with_line {
                q.line(SimTime(3))
            } else {
                LineId::NONE
            };
            let mut lane = Lane::new();
            let mut out = Vec::new();
            lane.push_waking_on(SimTime(3), 'a', &mut q, line, 1); // empty, 3 ahead: the line
            q.schedule(SimTime(3), 2); // same instant, scheduled later: runs after 'a'
            lane.push_waking_on(SimTime(4), 'b', &mut q, line, 1); // not empty: no wake-up
            while let Some((t, e)) = q.pop() {
                out.push((t, e));
                if e == 1 {
                    let (item, next) = lane.pop().expect("a wake-up per head");
                    out.push((t, item as u32));
                    if let Some(n) = next {
                        q.schedule(n, 1);
                    }
                }
            }
            out
        };
        assert_eq!(run(true), run(false));
        assert_eq!(
            run(true),
            vec![
                (SimTime(3), 1),
                (SimTime(3), 'a' as u32),
                (SimTime(3), 2),
                (SimTime(4), 1),
                (SimTime(4), 'b' as u32)
            ]
        );
    }

    #[test]
    #[should_panic(expected = "an item was taken from an empty ring")]
    fn taking_from_an_empty_lane_panics() {
        let mut q: EventQueue<u8> = EventQueue::new();
        let line = q.line(SimTime(2));
        Lane::<char>::new().take_waking_on(&mut q, line, 1);
    }
}
