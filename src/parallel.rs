//! Splitting a list of independent items over the cores, keeping their order.
//!
//! The stages are pure, so a list of devices (or label sheets) can be cut into one contiguous
//! chunk per core and the results put back in chunk order: the output is the same as a
//! sequential run's, byte for byte, whatever the number of cores.

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

#[cfg(test)]
mod tests {
    #[test]
    fn results_come_back_in_order() {
        let items: Vec<u32> = (0..1000).collect();
        let sums = super::chunks(&items, |c| c.to_vec());
        assert_eq!(sums.concat(), items);
        assert_eq!(super::chunks(&[] as &[u32], <[u32]>::len), vec![0]);
    }
}
