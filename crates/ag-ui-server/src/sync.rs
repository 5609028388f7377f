//! Locking a mutex whose holder may have panicked.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `m`; a mutex poisoned by a panic while it was held is locked all the same, its
/// data taken as that holder left it.
pub(crate) fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
