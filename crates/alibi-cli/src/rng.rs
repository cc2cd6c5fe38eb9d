//! The randomness every command draws from: the operating system's generator, directly.

use getrandom::SysRng;
use rand_core::UnwrapErr;

/// The operating system's cryptographic generator; a failure of the OS source aborts the
/// command rather than continuing with weak randomness.
pub fn os_rng() -> UnwrapErr<SysRng> {
    UnwrapErr(SysRng)
}
