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
    map_in_order(&(0..count).collect::<Vec<_>>(), work)
}

/// [`map`], with the items taken in `order` (a permutation of `0..order.len()`), such as the
/// longest first: one long item taken last would run alone while the other cores idle.
pub(crate) fn map_in_order<T: Send>(
    order: &[usize],
    work: impl Fn(usize) -> Option<T> + Sync,
) -> Vec<Option<T>> {
    let count = order.len();
    let slots: Vec<Mutex<Option<T>>> = (0..count).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(count.max(1));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let result = work(i);
                    *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = result;
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|slot| slot.into_inner().unwrap_or_else(|e| e.into_inner()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_taken_in_the_order_given_and_their_results_kept_in_theirs() {
        let order = [3, 0, 4, 1, 2];
        let taken = Mutex::new(Vec::new());
        let results = map_in_order(&order, |i| {
            taken.lock().unwrap().push(i);
            (i != 4).then_some(i * 10)
        });
        assert_eq!(results, [Some(0), Some(10), Some(20), Some(30), None]);
        let mut taken = taken.into_inner().unwrap();
        // The first taken is among the first the threads start with (one item each).
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert!(
            order[..threads.min(order.len())].contains(&taken[0]),
            "{taken:?}"
        );
        taken.sort_unstable();
        assert_eq!(taken, [0, 1, 2, 3, 4], "each once");
    }
}
