//! Splitting the pure stages' work over the cores, keeping its order: a list of independent
//! items cut into one contiguous chunk per core ([`chunks`]), or two independent jobs side by
//! side ([`join`]). The results are put back in order, so the output is the same as a
//! sequential run's, byte for byte, whatever the number of cores. Every thread of the stages
//! starts here; the edges' device workers (push waves, lab loads) are I/O-bound and keep their
//! own.
//!
//! Why not rayon: these are the only two shapes the stages need, each a few lines over
//! `std::thread::scope`, and the chunks are sized once per call (one per core) rather than
//! stolen; the build has no thread pool to size or to share with the edges' I/O threads.
/// The number of chunks: the cores the process may use, at most 8 (the stages' work per item
/// is small; more threads than that only add joins).
fn threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .clamp(1, 8)
}

/// `work` on contiguous chunks of `items`, one chunk per core, the results in chunk order. A
/// panic in a worker is re-raised on the calling thread (never lost).
pub(crate) fn chunks<T: Sync, R: Send>(items: &[T], work: impl Fn(&[T]) -> R + Sync) -> Vec<R> {
    let size = items.len().div_ceil(threads()).max(1);
    if items.len() <= size {
        return vec![work(items)];
    }
    std::thread::scope(|s| {
        let work = &work;
        let handles: Vec<_> = items
            .chunks(size)
            .map(|part| s.spawn(move || work(part)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// `a` and `b` side by side (`b` on the calling thread), both results back. A panic in either
/// is re-raised on the calling thread.
pub(crate) fn join<A: Send, B>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B) -> (A, B) {
    std::thread::scope(|s| {
        let a = s.spawn(a);
        let b = b();
        let a = a.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        (a, b)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_come_back_in_order() {
        let items: Vec<u32> = (0..1000).collect();
        let sums = super::chunks(&items, |c| c.to_vec());
        assert_eq!(sums.concat(), items);
        assert_eq!(super::chunks(&[] as &[u32], <[u32]>::len), vec![0]);
    }

    #[test]
    fn join_returns_both_and_re_raises_a_panic() {
        assert_eq!(super::join(|| 1, || "b"), (1, "b"));
        let caught = std::panic::catch_unwind(|| super::join(|| panic!("in a"), || ()));
        assert!(caught.is_err());
    }
}
