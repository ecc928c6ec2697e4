//! Support for the tracelint fuzz targets: an allocator that turns runaway allocation into a
//! crash libFuzzer records, on any toolchain (libFuzzer's own `-malloc_limit_mb` needs a
//! sanitizer's malloc hooks, which a `-s none` build does not have).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Largest single allocation allowed (bytes).
pub const MAX_ONE_ALLOC: usize = 256 << 20;
/// Largest total of live allocations allowed (bytes).
pub const MAX_LIVE: usize = 1 << 30;

/// The system allocator with caps; exceeding one prints what happened and aborts.
pub struct CappedAlloc {
    live: AtomicUsize,
}

impl CappedAlloc {
    /// A new allocator with nothing allocated.
    pub const fn new() -> Self {
        CappedAlloc {
            live: AtomicUsize::new(0),
        }
    }

    fn admit(&self, size: usize) {
        if size > MAX_ONE_ALLOC {
            fail(b"tracelint-fuzz: single allocation above the 256 MiB cap\n");
        }
        let before = self.live.fetch_add(size, Ordering::Relaxed);
        if before.saturating_add(size) > MAX_LIVE {
            fail(b"tracelint-fuzz: live allocations above the 1 GiB cap\n");
        }
    }
}

impl Default for CappedAlloc {
    fn default() -> Self {
        Self::new()
    }
}

fn fail(msg: &[u8]) -> ! {
    use std::io::Write;
    // No allocation here: stderr is unbuffered and `msg` is static.
    let _ = std::io::stderr().write_all(msg);
    std::process::abort();
}

// SAFETY: every call is forwarded to `System` with the caller's layout and pointer unchanged;
// the wrapper only keeps a counter of live bytes.
unsafe impl GlobalAlloc for CappedAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.admit(layout.size());
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.admit(layout.size());
        System.alloc_zeroed(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.live.fetch_sub(layout.size(), Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > MAX_ONE_ALLOC {
            fail(b"tracelint-fuzz: single allocation above the 256 MiB cap\n");
        }
        if new_size > layout.size() {
            self.admit(new_size - layout.size());
        } else {
            self.live
                .fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        System.realloc(ptr, layout, new_size)
    }
}

/// Declares a fuzz target calling `$run` with the capped allocator installed.
#[macro_export]
macro_rules! target {
    ($run:path) => {
        #[global_allocator]
        static ALLOC: $crate::CappedAlloc = $crate::CappedAlloc::new();

        libfuzzer_sys::fuzz_target!(|data: &[u8]| {
            $run(data);
        });
    };
}
