//! Work spread over every core: the stages that encode (images, compression) run one item per
//! task on scoped threads, keeping the items' order in their results.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// `work(i)` for every `i` in `0..count`, on as many threads as there are cores (at most
/// `count`), taken in order; the results in the order of `i`. A `None` from `work` (an item
/// skipped) stays `None`.
pub(crate) fn map<T: Send>(
    count: usize,
    work: impl Fn(usize) -> Option<T> + Sync,
) -> Vec<Option<T>> {
    let slots: Vec<Mutex<Option<T>>> = (0..count).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(count.max(1));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= count {
                    break;
                }
                let result = work(i);
                *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = result;
            });
        }
    });
    slots
        .into_iter()
        .map(|slot| slot.into_inner().unwrap_or_else(|e| e.into_inner()))
        .collect()
}
