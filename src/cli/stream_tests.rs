use super::*;

#[test]
fn results_come_in_order_and_the_window_bounds_what_is_held() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let items: Vec<u64> = (0..500).collect();
    let in_flight = std::sync::atomic::AtomicUsize::new(0);
    let most = std::sync::atomic::AtomicUsize::new(0);
    let mut seen = Vec::new();
    ordered(
        &pool,
        &items,
        8,
        |&i| {
            use std::sync::atomic::Ordering::SeqCst;
            let n = in_flight.fetch_add(1, SeqCst) + 1;
            most.fetch_max(n, SeqCst);
            // Later items finish first now and then, so results arrive out of order.
            if i % 7 == 0 {
                std::thread::yield_now();
            }
            i * 2
        },
        |r| {
            in_flight.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
            seen.push(r);
        },
    );
    assert_eq!(seen, items.iter().map(|i| i * 2).collect::<Vec<_>>());
    // Taken but not yet handed on: never more than the window.
    assert!(most.load(std::sync::atomic::Ordering::SeqCst) <= 8);
}

#[test]
fn no_items_and_one_thread() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let mut n = 0;
    ordered(&pool, &[] as &[u8], 4, |_| 1, |_| n += 1);
    assert_eq!(n, 0);
    ordered(&pool, &[1u8, 2, 3], 1, |&x| x, |_| n += 1);
    assert_eq!(n, 3);
}
