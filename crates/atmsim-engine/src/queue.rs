//! The event queue: events popped in `(time, sequence)` order, from a hierarchical timing
//! wheel.
//!
//! The sequence number is an insertion counter, so events scheduled for the same instant come
//! out in the order they were scheduled (as ns-3's `(m_ts, m_uid)`). That order is the
//! contract; the data structure behind it is free to change, and the tests check it against a
//! binary heap.
//!
//! **The wheel.** Time is cut into ticks of 2^22 ps (about 4.2 us; a 155.52 Mb/s cell takes 0.65
//! of one: a tick holds a few events, so moving the wheel to the next one is paid for by
//! several; with 2^20 ps ticks a network of paced ABR sources moved it once per 2.2 events, at
//! about 150 instructions a move). Six levels of 256 slots each cover every `u64` time: level `l` holds the events
//! whose tick agrees with the wheel's current tick on every digit above digit `l` (base 256)
//! but not on digit `l`, in the slot of that digit. An event of the current tick sits in a
//! short sorted run ("ready") from which `pop` takes the front. When the ready run is empty
//! the wheel moves to the next non-empty slot (a bitmap per level finds it): at level 0 its
//! events become the ready run, sorted; at a higher level they are spread over the lower
//! levels (each event moves down at most once per level). Scheduling is a few bit operations
//! and a push; popping is a pop from the front of a sorted run. So the cost per event does not
//! grow with the number of events waiting, and nothing is allocated once the buckets have
//! grown to their working size.
//!
//! **Lines.** Many events are scheduled a fixed delay after the event that schedules them: a
//! port's end of transmission one cell time after its start, a busy link's next arrival one
//! cell time after the last. Since `now` never decreases, the events scheduled `d` after `now`
//! come in `(time, sequence)` order: a FIFO (a "line", one per delay, see
//! [`EventQueue::line`]) holds them sorted with a push at the back, and `pop` takes the
//! earliest of the ready run's front and each line's front. An event given to a line at any
//! other time than `now + d` goes to the wheel, so the order is the same whichever way an
//! event goes; a line only makes it cheaper.

use crate::time::SimTime;

/// log2 of the tick in picoseconds.
const TICK_SHIFT: u32 = 22;
/// Slots per level (one base-256 digit of the tick).
const SLOTS: usize = 256;
/// Levels: 42-bit ticks (64 - 22) need six 8-bit digits.
const LEVELS: usize = 6;

#[derive(Clone, Copy)]
struct Entry<E> {
    time: SimTime,
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    #[inline]
    fn key(&self) -> (SimTime, u64) {
        (self.time, self.seq)
    }
}

/// One level of the wheel: its slots and which of them hold events.
struct Level<E> {
    slots: Vec<Vec<Entry<E>>>,
    occupied: [u64; SLOTS / 64],
}

impl<E> Level<E> {
    fn new() -> Self {
        Level {
            slots: (0..SLOTS).map(|_| Vec::new()).collect(),
            occupied: [0; SLOTS / 64],
        }
    }

    /// The first occupied slot after `digit`, if any.
    #[inline]
    fn next_after(&self, digit: usize) -> Option<usize> {
        let start = digit + 1;
        if start >= SLOTS {
            return None;
        }
        let (mut w, bit) = (start / 64, start % 64);
        let mut word = self.occupied[w] & (!0u64 << bit);
        loop {
            if word != 0 {
                return Some(w * 64 + word.trailing_zeros() as usize);
            }
            w += 1;
            if w == SLOTS / 64 {
                return None;
            }
            word = self.occupied[w];
        }
    }
}

/// Sorts a level-0 bucket by (time, seq). A bucket holds the few events of one tick, in the
/// order they were scheduled (sequence order: an event cascades down from a higher level
/// before any event of its tick is scheduled into level 0, and each level's slots fill in
/// sequence order too), and mostly already in time order. So a stable sort by time alone
/// gives the (time, seq) order, with one comparison of times where the key takes two:
/// insertion sort, inlined, for short buckets (each entry out of order is held, the later
/// ones before it move up one place, and it is written once where it belongs); the library
/// sort by the whole key for long ones. Keys are unique, so the result is the same whichever
/// sort runs.
#[inline(always)]
fn sort_bucket<E: Copy>(v: &mut [Entry<E>]) {
    debug_assert!(
        v.windows(2).all(|w| w[0].seq < w[1].seq),
        "a level-0 bucket is in sequence order"
    );
    if v.len() > 24 {
        v.sort_unstable_by_key(|e| e.key());
        return;
    }
    for i in 1..v.len() {
        let e = v[i];
        if v[i - 1].time <= e.time {
            continue;
        }
        let mut j = i;
        while j > 0 && v[j - 1].time > e.time {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = e;
    }
}

/// How many lines a queue keeps at most ([`EventQueue::line`]): `pop` compares their fronts.
pub const MAX_LINES: usize = 4;

/// A line of an [`EventQueue`]: events scheduled a fixed delay after `now` ([`EventQueue::line`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineId(u8);

impl LineId {
    /// No line: events given to it go to the wheel.
    pub const NONE: LineId = LineId(u8::MAX);
}

/// A FIFO of events each scheduled `delay` after the `now` of its scheduling.
struct Line<E> {
    delay: SimTime,
    entries: crate::ring::Ring<Entry<E>>,
}

/// Where the earliest event waits.
#[derive(Clone, Copy)]
enum Head {
    Ready,
    Line(usize),
}

/// A queue of future events of type `E`, popped in `(time, insertion order)`.
pub struct EventQueue<E> {
    /// Events of the current tick, sorted by (time, seq), from `ready_at` on; `pop` takes
    /// `ready[ready_at]` (the vector is cleared when it is used up).
    ready: Vec<Entry<E>>,
    ready_at: usize,
    /// The lines: each sorted by (time, seq).
    lines: Vec<Line<E>>,
    levels: [Level<E>; LEVELS],
    /// The wheel's position: no event waits at an earlier tick (except in `ready`).
    tick: u64,
    /// Events in the wheel and the ready run (not in the lines).
    wheel_len: usize,
    /// No event waits in a slot at an earlier tick (a lower bound, set when `advance` stops
    /// short of a line's front, so that it is not asked again before a line gets there).
    wheel_next: u64,
    len: usize,
    next_seq: u64,
    now: SimTime,
    popped: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

/// Events are small copyable values (an enum naming what they act on).
impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            ready: Vec::with_capacity(64),
            ready_at: 0,
            lines: Vec::new(),
            levels: std::array::from_fn(|_| Level::new()),
            tick: 0,
            wheel_len: 0,
            wheel_next: 0,
            len: 0,
            next_seq: 0,
            now: SimTime::ZERO,
            popped: 0,
        }
    }

    /// The time of the last event popped.
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Number of events popped so far.
    #[inline]
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    /// Number of events waiting.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Schedules `event` at `time`. Scheduling in the past is a model bug.
    #[inline(always)]
    pub fn schedule(&mut self, time: SimTime, event: E) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let seq = self.next_seq;
        self.next_seq += 1;
        self.len += 1;
        self.wheel_len += 1;
        self.place(Entry { time, seq, event });
    }

    /// The line of events scheduled `delay` after `now` (the same line for the same delay),
    /// or [`LineId::NONE`] once the queue has [`MAX_LINES`] lines of other delays.
    pub fn line(&mut self, delay: SimTime) -> LineId {
        if let Some(i) = self.lines.iter().position(|l| l.delay == delay) {
            return LineId(i as u8);
        }
        if self.lines.len() == MAX_LINES {
            return LineId::NONE;
        }
        self.lines.push(Line {
            delay,
            entries: crate::ring::Ring::with_capacity(64),
        });
        LineId(self.lines.len() as u8 - 1)
    }

    /// Schedules `event` at `time`, as [`EventQueue::schedule`] does: in line `line` if `time`
    /// is the line's delay after `now` (the line stays sorted), in the wheel otherwise. The
    /// order events are popped in is the same either way.
    #[inline(always)]
    pub fn schedule_on(&mut self, line: LineId, time: SimTime, event: E) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        if let Some(l) = self.lines.get_mut(line.0 as usize) {
            if self.now + l.delay == time {
                let seq = self.next_seq;
                self.next_seq += 1;
                self.len += 1;
                l.entries.push_back(Entry { time, seq, event });
                return;
            }
        }
        self.schedule(time, event);
    }

    /// Puts an entry in the ready run (its tick is the wheel's, or earlier) or in its slot.
    #[inline(always)]
    fn place(&mut self, e: Entry<E>) {
        let tick = e.time.0 >> TICK_SHIFT;
        if tick <= self.tick {
            // Usually the latest of the tick (a later time, or the same with a later seq).
            if self.ready.last().is_none_or(|b| b.key() < e.key()) {
                self.ready.push(e);
            } else {
                self.insert_ready(e.time, e.seq, e.event);
            }
            return;
        }
        self.wheel_next = self.wheel_next.min(tick);
        let diff = tick ^ self.tick;
        let level = ((63 - diff.leading_zeros()) / 8) as usize;
        let digit = ((tick >> (8 * level)) & (SLOTS as u64 - 1)) as usize;
        let l = &mut self.levels[level];
        l.slots[digit].push(e);
        l.occupied[digit / 64] |= 1 << (digit % 64);
    }

    /// Puts an event in the ready run before the later entries, which move up one place from
    /// the back: the ready run is short, and this is cheaper than a search and `Vec::insert`'s
    /// move (about a tenth of the events of the ABR bench network come this way). Out of line,
    /// with the entry's fields as arguments (in registers): an entry passed whole would be
    /// kept in memory at every call site for this rare branch, and read back whole after
    /// being written in pieces (the stall docs/architecture.md describes).
    #[inline(never)]
    fn insert_ready(&mut self, time: SimTime, seq: u64, event: E) {
        let e = Entry { time, seq, event };
        let key = (time, seq);
        self.ready.push(e);
        let mut j = self.ready.len() - 1;
        while j > self.ready_at && self.ready[j - 1].key() > key {
            self.ready[j] = self.ready[j - 1];
            j -= 1;
        }
        self.ready[j] = e;
    }

    /// Moves the wheel to the next tick that holds events and fills the ready run, unless
    /// that tick is after `limit` (the tick of a line's front, which then comes first). The
    /// wheel never runs ahead of the earliest event: an event scheduled before the wheel's
    /// tick would go to the ready run by a sorted insertion.
    fn advance(&mut self, limit: u64) {
        while self.ready.is_empty() && self.wheel_len > 0 {
            // The lowest level with an occupied slot after the current digit. When the wheel
            // knows its next tick and it lies in the current 256 ticks, that tick's level-0
            // slot is it: `wheel_next` is then where a move or a `place` found an event.
            let mut found = None;
            if self.wheel_next > self.tick && (self.wheel_next ^ self.tick) < SLOTS as u64 {
                let digit = (self.wheel_next & (SLOTS as u64 - 1)) as usize;
                debug_assert!(
                    self.levels[0].occupied[digit / 64] & (1 << (digit % 64)) != 0,
                    "the wheel's next tick holds events"
                );
                found = Some((0, digit));
            }
            for level in 0..LEVELS {
                if found.is_some() {
                    break;
                }
                let digit = ((self.tick >> (8 * level)) & (SLOTS as u64 - 1)) as usize;
                if let Some(next) = self.levels[level].next_after(digit) {
                    found = Some((level, next));
                    break;
                }
            }
            let (level, digit) = found.expect("a waiting event is in some slot");
            let shift = 8 * level as u32;
            // The first tick of that slot: higher digits kept, this digit set, lower ones 0.
            let above = if shift + 8 >= 64 {
                0
            } else {
                self.tick >> (shift + 8) << (shift + 8)
            };
            let tick = above | ((digit as u64) << shift);
            if tick > limit {
                self.wheel_next = tick;
                return;
            }
            self.tick = tick;
            let l = &mut self.levels[level];
            l.occupied[digit / 64] &= !(1 << (digit % 64));
            if level == 0 {
                // Every event of the slot is of the new tick: sorted, they are the ready run.
                // The slot takes the ready run's empty vector (both keep their capacity).
                sort_bucket(&mut l.slots[digit]);
                std::mem::swap(&mut self.ready, &mut l.slots[digit]);
                self.ready_at = 0;
                // The next tick that may hold events: the next occupied slot of this level,
                // or the start of the next 256 ticks (the higher levels' events are there or
                // later). Then the next `advance` runs only once a line's front gets there.
                self.wheel_next = match self.levels[0].next_after(digit) {
                    Some(d) => (tick & !(SLOTS as u64 - 1)) | d as u64,
                    None => (tick | (SLOTS as u64 - 1)) + 1,
                };
            } else {
                let mut bucket = std::mem::take(&mut l.slots[digit]);
                for e in bucket.drain(..) {
                    self.place(e);
                }
                // Keep the bucket's capacity for the next time the slot fills.
                self.levels[level].slots[digit] = bucket;
            }
        }
    }

    /// Where the earliest event waits, and its key; `None` if the queue is empty.
    #[inline(always)]
    fn head(&mut self) -> Option<(Head, (SimTime, u64))> {
        let mut best: Option<(Head, (SimTime, u64))> = None;
        for (i, l) in self.lines.iter().enumerate() {
            if let Some(f) = l.entries.front() {
                if best.is_none_or(|(_, k)| f.key() < k) {
                    best = Some((Head::Line(i), f.key()));
                }
            }
        }
        if self.ready.is_empty() && self.wheel_len > 0 {
            let limit = best.map_or(u64::MAX, |(_, (t, _))| t.0 >> TICK_SHIFT);
            if self.wheel_next <= limit {
                self.advance(limit);
            }
        }
        if let Some(e) = self.ready.get(self.ready_at) {
            if best.is_none_or(|(_, k)| e.key() < k) {
                best = Some((Head::Ready, e.key()));
            }
        }
        best
    }

    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.head().map(|(_, (t, _))| t)
    }

    /// Removes the earliest event and advances `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        self.pop_until(SimTime(u64::MAX))
    }

    /// Removes the earliest event if its time is `until` or earlier, and advances `now` to it.
    #[inline]
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, E)> {
        let (head, (time, _)) = self.head()?;
        if time > until {
            return None;
        }
        let e = match head {
            Head::Ready => {
                self.wheel_len -= 1;
                let e = self.ready[self.ready_at];
                self.ready_at += 1;
                if self.ready_at == self.ready.len() {
                    self.ready.clear();
                    self.ready_at = 0;
                }
                Some(e)
            }
            Head::Line(i) => self.lines[i].entries.pop_front(),
        }?;
        self.len -= 1;
        self.now = e.time;
        self.popped += 1;
        Some((e.time, e.event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    #[test]
    fn ties_run_in_schedule_order() {
        let mut q = EventQueue::new();
        let t = SimTime::from_us(5);
        for i in 0..100 {
            q.schedule(t, i);
        }
        let order: Vec<i32> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn far_and_near_events_come_out_in_time_order() {
        let mut q = EventQueue::new();
        let times = [
            u64::MAX,
            1,
            0,
            1 << 20,
            (1 << 20) - 1,
            1 << 40,
            (1 << 28) + 5,
            SimTime::from_secs(64).0,
            SimTime::from_secs(86_400 * 200).0,
        ];
        for (i, &t) in times.iter().enumerate() {
            q.schedule(SimTime(t), i);
        }
        let mut sorted: Vec<(u64, usize)> = times.iter().copied().zip(0..).collect();
        sorted.sort();
        let got: Vec<(u64, usize)> =
            std::iter::from_fn(|| q.pop().map(|(t, e)| (t.0, e))).collect();
        assert_eq!(got, sorted);
        assert!(q.is_empty() && q.pop().is_none() && q.peek_time().is_none());
    }

    /// The reference: a binary heap of (time, seq), the queue atmsim used before the wheel.
    struct Reference {
        heap: BinaryHeap<Reverse<(u64, u64, u32)>>,
        seq: u64,
    }

    impl Reference {
        fn schedule(&mut self, t: u64, e: u32) {
            self.heap.push(Reverse((t, self.seq, e)));
            self.seq += 1;
        }
        fn pop(&mut self) -> Option<(u64, u32)> {
            self.heap.pop().map(|Reverse((t, _, e))| (t, e))
        }
        /// Schedules event `e` at `t` in the wheel of `q` and in the reference.
        fn schedule_alike(&mut self, q: &mut EventQueue<u32>, t: u64, e: u32) {
            q.schedule(SimTime(t), e);
            self.schedule(t, e);
        }
        /// Pops `q` and the reference: the same event, and `q`'s peek said its time.
        fn pop_alike(&mut self, q: &mut EventQueue<u32>) -> Result<(), TestCaseError> {
            let peeked = q.peek_time();
            let got = q.pop().map(|(t, e)| (t.0, e));
            prop_assert_eq!(peeked.map(|t| t.0), got.map(|g| g.0));
            prop_assert_eq!(got, self.pop());
            Ok(())
        }
        /// Empties both: the same events in the same order, and nothing left in `q`.
        fn drain_alike(&mut self, q: &mut EventQueue<u32>) -> Result<(), TestCaseError> {
            while let Some(want) = self.pop() {
                prop_assert_eq!(q.pop().map(|(t, e)| (t.0, e)), Some(want));
            }
            prop_assert!(q.pop().is_none());
            Ok(())
        }
    }

    #[test]
    fn lines_are_found_by_delay_and_limited() {
        let mut q = EventQueue::<u32>::new();
        let a = q.line(SimTime(10));
        assert_eq!(q.line(SimTime(10)), a);
        let more: Vec<LineId> = (1..MAX_LINES as u64)
            .map(|d| q.line(SimTime(10 + d)))
            .collect();
        assert!(more.iter().all(|&l| l != a && l != LineId::NONE));
        assert_eq!(q.line(SimTime(999)), LineId::NONE);
        // An event given to no line, or off its line's delay, goes to the wheel: same order.
        q.schedule_on(LineId::NONE, SimTime(3), 0);
        q.schedule_on(a, SimTime(10), 1);
        q.schedule_on(a, SimTime(4), 2);
        q.schedule(SimTime(10), 3);
        let got: Vec<(u64, u32)> = std::iter::from_fn(|| q.pop().map(|(t, e)| (t.0, e))).collect();
        assert_eq!(got, [(3, 0), (4, 2), (10, 1), (10, 3)]);
    }

    #[test]
    fn the_wheel_does_not_run_ahead_of_a_line() {
        let mut q = EventQueue::new();
        let line = q.line(SimTime(3_000_000));
        let far = SimTime::from_secs(1);
        q.schedule(far, 0);
        q.schedule_on(line, SimTime(3_000_000), 1);
        assert_eq!(q.pop(), Some((SimTime(3_000_000), 1)));
        // The wheel stayed near now: an event a few cells later goes to its slot, not into
        // a sorted ready run ahead of the far one.
        assert!(q.tick < far.0 >> TICK_SHIFT);
        q.schedule(SimTime(10_000_000), 2);
        assert!(q.ready.is_empty());
        assert_eq!(q.pop(), Some((SimTime(10_000_000), 2)));
        assert_eq!(q.pop(), Some((far, 0)));
    }

    #[test]
    fn pop_until_leaves_later_events() {
        let mut q = EventQueue::new();
        let l = q.line(SimTime(5));
        q.schedule_on(l, SimTime(5), 'a');
        q.schedule(SimTime(7), 'b');
        assert_eq!(q.pop_until(SimTime(4)), None);
        assert_eq!(q.pop_until(SimTime(6)), Some((SimTime(5), 'a')));
        assert_eq!(q.pop_until(SimTime(6)), None);
        assert_eq!((q.len(), q.now()), (1, SimTime(5)));
        assert_eq!(q.pop_until(SimTime(7)), Some((SimTime(7), 'b')));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Events scheduled on lines (most at their line's delay after `now`, some not), mixed
        /// with events in the wheel and pops, come out exactly in the binary heap's order.
        #[test]
        fn lines_keep_the_binary_heap_order(
            ops in proptest::collection::vec(
                prop_oneof![
                    2 => (0u8..4, any::<u64>()).prop_map(|(line, x)| Some((line, x))),
                    1 => (4u8..6, any::<u64>()).prop_map(|(scale, x)| Some((scale, x))),
                    2 => Just(None),
                ],
                1..600,
            )
        ) {
            let mut q = EventQueue::new();
            // Delays: a tie, a cell time, a link delay; a fourth line shares the second's.
            let delays = [0u64, 2_726_000, 1_000_000_000, 2_726_000];
            let lines: Vec<LineId> = delays.iter().map(|&d| q.line(SimTime(d))).collect();
            prop_assert_eq!(lines[1], lines[3]);
            let mut r = Reference { heap: BinaryHeap::new(), seq: 0 };
            let mut id = 0u32;
            for op in ops {
                match op {
                    Some((which, x)) if which < 4 => {
                        let w = which as usize;
                        // Mostly on the line's delay; else anywhere in the next few cells.
                        let t = if x % 5 > 0 {
                            q.now().0 + delays[w]
                        } else {
                            q.now().0 + x % 8_000_000
                        };
                        q.schedule_on(lines[w], SimTime(t), id);
                        r.schedule(t, id);
                        id += 1;
                    }
                    Some((scale, x)) => {
                        let span = [4_000_000u64, 1 << 40][scale as usize - 4];
                        let t = q.now().0 + x % span;
                        r.schedule_alike(&mut q, t, id);
                        id += 1;
                    }
                    None => r.pop_alike(&mut q)?,
                }
                prop_assert_eq!(q.len(), r.heap.len());
            }
            r.drain_alike(&mut q)?;
        }

        /// Many events at the same few instants, some of a tick ahead (they wait in a
        /// level-0 bucket), some several hundred ticks ahead (they cascade down from level 1
        /// into buckets that then also take events scheduled straight into them): ties come
        /// out in the order they were scheduled, as the binary heap has them. (A bucket is
        /// sorted by time alone, relying on it being in scheduling order.)
        #[test]
        fn ties_in_buckets_and_cascades_keep_the_binary_heap_order(
            ops in proptest::collection::vec(
                prop_oneof![
                    4 => (0u64..6, 0u64..4).prop_map(|(instant, far)| Some((instant, far))),
                    1 => Just(None),
                ],
                1..800,
            )
        ) {
            let mut q = EventQueue::new();
            let mut r = Reference { heap: BinaryHeap::new(), seq: 0 };
            let mut id = 0u32;
            let tick = 1u64 << TICK_SHIFT;
            for op in ops {
                match op {
                    Some((instant, far)) => {
                        // One of six instants within a tick, 0, 1, 300 or 600 ticks on from
                        // the current tick's start.
                        let base = (q.now().0 >> TICK_SHIFT) * tick;
                        let t = (base + [0, 1, 300, 600][far as usize] * tick + instant * 1000)
                            .max(q.now().0);
                        r.schedule_alike(&mut q, t, id);
                        id += 1;
                    }
                    None => r.pop_alike(&mut q)?,
                }
                prop_assert_eq!(q.len(), r.heap.len());
            }
            r.drain_alike(&mut q)?;
        }

        /// Any interleaving of schedules (at or after the current time, near and far) and
        /// pops gives exactly the binary heap's order.
        #[test]
        fn pops_in_the_same_order_as_a_binary_heap(
            ops in proptest::collection::vec(
                prop_oneof![
                    3 => (0u8..6, any::<u64>()).prop_map(|(scale, x)| Some((scale, x))),
                    2 => Just(None),
                ],
                1..600,
            )
        ) {
            let mut q = EventQueue::new();
            let mut r = Reference { heap: BinaryHeap::new(), seq: 0 };
            let mut id = 0u32;
            for op in ops {
                match op {
                    Some((scale, x)) => {
                        // Offsets from ties (0) through cell times, link delays and timers,
                        // up to the far end of u64.
                        let span = [1u64, 4_000_000, 1 << 32, 1 << 44, 1 << 56, u64::MAX][scale as usize];
                        let t = q.now().0.saturating_add(x % span);
                        r.schedule_alike(&mut q, t, id);
                        id += 1;
                    }
                    None => r.pop_alike(&mut q)?,
                }
                prop_assert_eq!(q.len(), r.heap.len());
            }
            r.drain_alike(&mut q)?;
        }
    }
}
