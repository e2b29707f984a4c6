//! A FIFO ring of `Copy` items: a power-of-two buffer indexed by two free-running counters.
//!
//! What a port's queues and a link's lane need of a double-ended queue, and no more: push at
//! the back, pop at the front (and at the back, to cut a frame's tail), look at both ends,
//! iterate, keep some. The head and the tail are `u32` counters that only ever grow (wrapping);
//! the number held is their difference and an item's place is its counter masked by the
//! capacity, a power of two. A push or a pop is then one compare, one mask and one copy, with
//! no wrap-around test and no separate length to keep. The capacity doubles when a push finds
//! the ring full and never shrinks: a queue's buffer is allocated a few times over a run, not
//! per item.

use std::fmt;
use std::mem::MaybeUninit;
use std::ptr::NonNull;

/// The capacity a ring takes at its first push.
const FIRST_CAPACITY: usize = 4;

/// A FIFO of `Copy` items in a power-of-two ring buffer.
///
/// 24 bytes: a thin pointer to the buffer and three `u32`s (the buffer's length is
/// `mask + 1`), so a port's per-VC queues stay small.
pub struct Ring<T> {
    /// The buffer: `mask + 1` (wrapping) slots; none, and a dangling pointer, before the
    /// first allocation. Slots `head..tail` (masked) hold initialised items.
    ptr: NonNull<MaybeUninit<T>>,
    /// The buffer's length minus one, wrapping (`u32::MAX`: no buffer): an item's slot is its
    /// counter `& mask`, and the ring is full when it holds `mask + 1` (wrapping) items.
    mask: u32,
    /// Counter of the front item (wrapping).
    head: u32,
    /// Counter one past the back item (wrapping); `tail - head` items are held.
    tail: u32,
}

// SAFETY: a ring owns its items as a `Box<[T]>` would.
unsafe impl<T: Send> Send for Ring<T> {}
// SAFETY: as above; `&Ring` only reads.
unsafe impl<T: Sync> Sync for Ring<T> {}

impl<T> Drop for Ring<T> {
    fn drop(&mut self) {
        // The items need no drop (the ring's methods hold `Copy` items only); the buffer is
        // freed.
        // SAFETY: `ptr` and the capacity are those of the buffer `alloc` made.
        unsafe { Self::free(self.ptr, self.capacity()) };
    }
}

impl<T: Copy> Default for Ring<T> {
    fn default() -> Self {
        Ring::new()
    }
}

impl<T> Ring<T> {
    /// Items it holds before it grows.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.mask.wrapping_add(1) as usize
    }

    /// A buffer of `cap` uninitialised slots (`cap` a power of two).
    fn alloc(cap: usize) -> NonNull<MaybeUninit<T>> {
        assert!(cap <= 1 << 31, "a ring holds at most 2^31 items");
        let buf: Box<[MaybeUninit<T>]> = std::iter::repeat_with(MaybeUninit::uninit)
            .take(cap)
            .collect();
        // SAFETY: a box's pointer is never null.
        unsafe { NonNull::new_unchecked(Box::into_raw(buf).cast::<MaybeUninit<T>>()) }
    }

    /// Frees a buffer of `cap` slots made by `alloc` (none if `cap` is 0).
    ///
    /// # Safety
    /// `ptr` and `cap` are a buffer from `alloc`, not freed before (or `cap` is 0).
    unsafe fn free(ptr: NonNull<MaybeUninit<T>>, cap: usize) {
        if cap > 0 {
            // SAFETY: the caller's promise: the slice `alloc` boxed.
            drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr.as_ptr(), cap)) });
        }
    }
}

impl<T: Copy> Ring<T> {
    /// An empty ring; it allocates at its first push.
    pub fn new() -> Self {
        Ring {
            ptr: NonNull::dangling(),
            mask: u32::MAX,
            head: 0,
            tail: 0,
        }
    }

    /// An empty ring with room for `n` items before it grows (rounded up to a power of two).
    pub fn with_capacity(n: usize) -> Self {
        let mut r = Ring::new();
        if n > 0 {
            let cap = n.next_power_of_two();
            r.ptr = Self::alloc(cap);
            r.mask = (cap - 1) as u32;
        }
        r
    }

    /// Items held.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.tail.wrapping_sub(self.head) as usize
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.head == self.tail
    }

    /// The slot of counter `i`.
    #[inline(always)]
    fn slot(&self, i: u32) -> *mut MaybeUninit<T> {
        let at = (i & self.mask) as usize;
        // The buffer has `mask + 1` slots whenever an item is held (the callers hold one, or
        // have just grown the ring), so the masked index is in it.
        debug_assert!(at < self.capacity());
        // SAFETY: `at < mask + 1`, the buffer's length (above).
        unsafe { self.ptr.as_ptr().add(at) }
    }

    /// Adds `item` at the back.
    #[inline(always)]
    pub fn push_back(&mut self, item: T) {
        if self.tail.wrapping_sub(self.head) == self.mask.wrapping_add(1) {
            self.grow();
        }
        // SAFETY: the ring is not full (it was just made or grown if it was full or had no
        // buffer), so the slot is in the buffer and free.
        unsafe { self.slot(self.tail).write(MaybeUninit::new(item)) };
        self.tail = self.tail.wrapping_add(1);
    }

    /// Removes the front item.
    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.is_empty() {
            return None;
        }
        // SAFETY: the ring holds an item, so its slot is in the buffer and initialised.
        let item = unsafe { (*self.slot(self.head)).assume_init() };
        self.head = self.head.wrapping_add(1);
        Some(item)
    }

    /// Removes the front item, which the caller knows is there: [`Ring::pop_front`] without
    /// the `Option`. Where `T` has a niche (a cell's kind byte), unwrapping an `Option<T>` in
    /// the event loop read that byte apart from the rest, and the compiler then moved the
    /// item through the stack in overlapping pieces, which the store buffer cannot forward
    /// to the loads that follow (the loads wait until the stores reach the cache).
    ///
    /// # Panics
    /// If the ring is empty.
    #[inline(always)]
    pub fn take_front(&mut self) -> T {
        if self.is_empty() {
            empty_ring();
        }
        // SAFETY: the ring holds an item, so its slot is in the buffer and initialised.
        let item = unsafe { (*self.slot(self.head)).assume_init() };
        self.head = self.head.wrapping_add(1);
        item
    }

    /// Removes the back item.
    #[inline]
    pub fn pop_back(&mut self) -> Option<T> {
        if self.is_empty() {
            return None;
        }
        self.tail = self.tail.wrapping_sub(1);
        // SAFETY: the slot held the back item: in the buffer and initialised.
        Some(unsafe { (*self.slot(self.tail)).assume_init() })
    }

    /// The front item.
    #[inline(always)]
    pub fn front(&self) -> Option<&T> {
        if self.is_empty() {
            return None;
        }
        // SAFETY: the ring holds an item: its slot is in the buffer and initialised.
        Some(unsafe { (*self.slot(self.head)).assume_init_ref() })
    }

    /// The back item.
    #[inline]
    pub fn back(&self) -> Option<&T> {
        if self.is_empty() {
            return None;
        }
        // SAFETY: as `front`.
        Some(unsafe { (*self.slot(self.tail.wrapping_sub(1))).assume_init_ref() })
    }

    /// The items, front to back.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + ExactSizeIterator + '_ {
        (0..self.tail.wrapping_sub(self.head)).map(move |k| {
            // SAFETY: counters `head..tail` hold initialised items in the buffer.
            unsafe { (*self.slot(self.head.wrapping_add(k))).assume_init_ref() }
        })
    }

    /// Keeps the items for which `keep` holds, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        let n = self.tail.wrapping_sub(self.head);
        let mut to = self.head;
        for k in 0..n {
            let from = self.head.wrapping_add(k);
            // SAFETY: counter `from` is in `head..tail`: initialised, in the buffer.
            let item = unsafe { (*self.slot(from)).assume_init() };
            if keep(&item) {
                // SAFETY: counter `to` is in `head..=from`: in the buffer (the ring holds
                // `from`'s item).
                unsafe { self.slot(to).write(MaybeUninit::new(item)) };
                to = to.wrapping_add(1);
            }
        }
        self.tail = to;
    }

    /// Removes every item (the buffer stays).
    pub fn clear(&mut self) {
        self.head = 0;
        self.tail = 0;
    }

    /// Doubles the buffer (or makes the first one), the items moved to its start in order.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let old_cap = self.capacity();
        let cap = (old_cap * 2).max(FIRST_CAPACITY);
        let buf = Self::alloc(cap);
        let n = self.len();
        for k in 0..n {
            // SAFETY: counter `head + k` is in `head..tail`: initialised, in the old buffer;
            // `k < n <= old_cap < cap`: in the new one.
            unsafe {
                buf.as_ptr()
                    .add(k)
                    .write(*self.slot(self.head.wrapping_add(k as u32)))
            };
        }
        // SAFETY: the old buffer, from `alloc`, not used again.
        unsafe { Self::free(self.ptr, old_cap) };
        self.ptr = buf;
        self.mask = (cap - 1) as u32;
        self.head = 0;
        self.tail = n as u32;
    }
}

impl<T: Copy> Clone for Ring<T> {
    fn clone(&self) -> Self {
        let mut r = Ring::with_capacity(self.capacity());
        for &x in self.iter() {
            r.push_back(x);
        }
        r
    }
}

impl<T: Copy + fmt::Debug> fmt::Debug for Ring<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Copy> FromIterator<T> for Ring<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut r = Ring::new();
        for x in iter {
            r.push_back(x);
        }
        r
    }
}

/// [`Ring::take_front`] of an empty ring: out of line, so the taking path stays short.
#[cold]
#[inline(never)]
#[track_caller]
fn empty_ring() -> ! {
    panic!("an item was taken from an empty ring")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    #[test]
    fn grows_by_doubling_and_keeps_order_across_the_wrap() {
        let mut r = Ring::new();
        assert_eq!(r.capacity(), 0);
        assert_eq!(r.pop_front(), None::<u32>);
        for i in 0..3 {
            r.push_back(i);
        }
        assert_eq!(r.capacity(), 4);
        // Head moves on: the next pushes wrap round the buffer's end.
        assert_eq!(r.pop_front(), Some(0));
        assert_eq!(r.pop_front(), Some(1));
        for i in 3..6 {
            r.push_back(i);
        }
        assert_eq!(r.capacity(), 4);
        assert_eq!(r.iter().copied().collect::<Vec<_>>(), [2, 3, 4, 5]);
        // Full and wrapped: the growth unwraps it.
        r.push_back(6);
        assert_eq!(r.capacity(), 8);
        assert_eq!(r.iter().copied().collect::<Vec<_>>(), [2, 3, 4, 5, 6]);
        assert_eq!(r.front(), Some(&2));
        assert_eq!(r.back(), Some(&6));
        assert_eq!(r.pop_back(), Some(6));
        assert_eq!(r.len(), 4);
    }

    #[test]
    fn a_ring_is_24_bytes() {
        assert_eq!(std::mem::size_of::<Ring<u64>>(), 24);
    }

    #[test]
    fn counters_wrap_round_u32() {
        let mut r = Ring::with_capacity(4);
        r.head = u32::MAX - 1;
        r.tail = u32::MAX - 1;
        for i in 0..6 {
            r.push_back(i);
        }
        assert_eq!(r.len(), 6);
        assert_eq!(r.iter().copied().collect::<Vec<_>>(), [0, 1, 2, 3, 4, 5]);
        r.retain(|&x| x % 2 == 1);
        assert_eq!(r.iter().copied().collect::<Vec<_>>(), [1, 3, 5]);
        assert_eq!(r.pop_back(), Some(5));
        assert_eq!(r.pop_front(), Some(1));
        assert_eq!(r.pop_front(), Some(3));
        assert!(r.is_empty());
    }

    #[derive(Debug, Clone)]
    enum Op {
        Push(u16),
        PopFront,
        PopBack,
        /// `take_front` when the ring holds an item.
        TakeFront,
        /// Keep the items not divisible by this.
        Retain(u16),
        Clear,
        Clone,
    }

    #[test]
    #[should_panic(expected = "an item was taken from an empty ring")]
    fn taking_from_an_empty_ring_panics() {
        let mut r: Ring<u32> = Ring::new();
        r.push_back(1);
        assert_eq!(r.take_front(), 1);
        r.take_front();
    }

    fn ops() -> impl Strategy<Value = Vec<Op>> {
        proptest::collection::vec(
            prop_oneof![
                8 => any::<u16>().prop_map(Op::Push),
                5 => Just(Op::PopFront),
                1 => Just(Op::PopBack),
                2 => Just(Op::TakeFront),
                1 => (2u16..7).prop_map(Op::Retain),
                1 => Just(Op::Clear),
                1 => Just(Op::Clone),
            ],
            1..600,
        )
    }

    proptest! {
        /// Every sequence of operations leaves the ring holding what a `VecDeque` holds, in
        /// the same order; every pop returns what the `VecDeque`'s does: items are neither
        /// lost, duplicated nor reordered.
        #[test]
        fn behaves_as_a_vecdeque(start in 0u32..=u32::MAX, ops in ops()) {
            let mut r: Ring<u16> = Ring::new();
            // Start the counters anywhere, so runs cross their wrap.
            r.head = start;
            r.tail = start;
            let mut d: VecDeque<u16> = VecDeque::new();
            let (mut pushed, mut popped, mut removed) = (0usize, 0usize, 0usize);
            for op in ops {
                match op {
                    Op::Push(x) => {
                        r.push_back(x);
                        d.push_back(x);
                        pushed += 1;
                    }
                    Op::PopFront => {
                        let x = r.pop_front();
                        prop_assert_eq!(x, d.pop_front());
                        popped += usize::from(x.is_some());
                    }
                    Op::PopBack => {
                        let x = r.pop_back();
                        prop_assert_eq!(x, d.pop_back());
                        popped += usize::from(x.is_some());
                    }
                    Op::TakeFront => {
                        if !r.is_empty() {
                            prop_assert_eq!(Some(r.take_front()), d.pop_front());
                            popped += 1;
                        }
                    }
                    Op::Retain(m) => {
                        let before = r.len();
                        r.retain(|&x| x % m != 0);
                        d.retain(|&x| x % m != 0);
                        removed += before - r.len();
                    }
                    Op::Clear => {
                        removed += r.len();
                        r.clear();
                        d.clear();
                    }
                    Op::Clone => r = r.clone(),
                }
                prop_assert_eq!(r.len(), d.len());
                prop_assert_eq!(pushed, r.len() + popped + removed);
                prop_assert!(r.capacity() >= r.len());
                prop_assert!(r.capacity() == 0 || r.capacity().is_power_of_two());
                prop_assert_eq!(r.front(), d.front());
                prop_assert_eq!(r.back(), d.back());
                prop_assert!(r.iter().eq(d.iter()));
                prop_assert!(r.iter().rev().eq(d.iter().rev()));
            }
        }
    }
}
