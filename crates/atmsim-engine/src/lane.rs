//! A constant-delay FIFO: items enter with their exit time and leave in order.
//!
//! A link with a fixed propagation delay never reorders, so the cells on it can wait in a
//! ring buffer, with only the head's exit time known to the event queue. The owner schedules
//! one wake-up when [`Lane::push`] says the lane was empty, and after each [`Lane::pop_due`]
//! schedules the next head's time if there is one.

use crate::queue::EventQueue;
use crate::time::SimTime;
use std::collections::VecDeque;

/// A FIFO of `(exit time, item)` with non-decreasing exit times.
#[derive(Debug, Clone)]
pub struct Lane<T> {
    items: VecDeque<(SimTime, T)>,
}

impl<T> Default for Lane<T> {
    fn default() -> Self {
        Lane {
            items: VecDeque::new(),
        }
    }
}

impl<T> Lane<T> {
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
    pub fn push_waking<E>(&mut self, exit: SimTime, item: T, queue: &mut EventQueue<E>, wake: E) {
        if self.push(exit, item) {
            queue.schedule(exit, wake);
        }
    }

    /// Removes the head item and schedules `wake` at the new head's exit time, if any.
    #[inline]
    pub fn pop_waking<E>(&mut self, queue: &mut EventQueue<E>, wake: E) -> Option<T> {
        let (item, next) = self.pop()?;
        if let Some(t) = next {
            queue.schedule(t, wake);
        }
        Some(item)
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
}
