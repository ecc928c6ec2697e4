//! Checking inputs in parallel while their reports are handed on one by one, in input order,
//! with at most a window of them held at once: a run's memory does not grow with its inputs.

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex};

/// Where the workers are: the next item to take, and how many were handed on.
struct Gate {
    next: usize,
    handed: usize,
}

/// Runs `work` on every item on the threads of `pool` and gives each result to `take` in the
/// order of `items`, on the calling thread. A worker takes an item only while fewer than
/// `window` taken items wait to be handed on, so at most `window` results are held at once,
/// however many items there are.
pub fn ordered<I: Sync, R: Send>(
    pool: &rayon::ThreadPool,
    items: &[I],
    window: usize,
    work: impl Fn(&I) -> R + Sync,
    mut take: impl FnMut(R),
) {
    let window = window.max(1);
    let gate = Mutex::new(Gate { next: 0, handed: 0 });
    let moved = Condvar::new();
    let lock = || match gate.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    };
    let workers = pool.current_num_threads().clamp(1, items.len().max(1));
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel::<(usize, R)>();
        for _ in 0..workers {
            let tx = tx.clone();
            let (work, lock, moved) = (&work, &lock, &moved);
            // Each worker runs on a thread of the pool, so a check that splits its own work
            // (rayon inside a format) shares the pool's threads and `--jobs` holds.
            s.spawn(move || {
                pool.install(|| loop {
                    let i = {
                        let mut g = lock();
                        while g.next < items.len() && g.next >= g.handed.saturating_add(window) {
                            g = match moved.wait(g) {
                                Ok(g) => g,
                                Err(p) => p.into_inner(),
                            };
                        }
                        if g.next >= items.len() {
                            break;
                        }
                        g.next = g.next.saturating_add(1);
                        g.next - 1
                    };
                    let Some(item) = items.get(i) else { break };
                    if tx.send((i, work(item))).is_err() {
                        break;
                    }
                })
            });
        }
        drop(tx);
        let mut held: BTreeMap<usize, R> = BTreeMap::new();
        let mut want = 0usize;
        for (i, r) in rx {
            held.insert(i, r);
            let before = want;
            while let Some(r) = held.remove(&want) {
                take(r);
                want = want.saturating_add(1);
            }
            if want != before {
                lock().handed = want;
                moved.notify_all();
            }
        }
    });
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
