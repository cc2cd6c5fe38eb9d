//! The randomness every command draws from: the operating system's generator, directly.

/// The operating system's cryptographic generator.
pub fn os_rng() -> rand_core::OsRng {
    rand_core::OsRng
}
