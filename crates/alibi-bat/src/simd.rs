//! Run-time selection of an AVX2 build of the hot functions (decryption and encryption): the
//! same portable Rust, compiled a second time with AVX2 enabled so that the compiler vectorises the
//! number-theoretic transforms eight lanes wide, and chosen when the CPU has AVX2. The only
//! `unsafe` of the crate is the call of that build, after the CPU check.

/// Whether the CPU has AVX2 (detected once, cached by the standard library).
#[cfg(target_arch = "x86_64")]
pub(crate) fn has_avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// Defines `pub(crate) fn $name` running `$body` (an `#[inline(always)]` portable function),
/// compiled for AVX2 when the CPU has it; `$avx2` names the AVX2 build.
macro_rules! avx2_dispatch {
    ($(#[$doc:meta])* $name:ident, $avx2:ident, $body:ident, ($($arg:ident: $ty:ty),*) -> $ret:ty) => {
        $(#[$doc])*
        pub(crate) fn $name($($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            #[allow(unsafe_code)]
            if $crate::simd::has_avx2() {
                // SAFETY: the CPU supports AVX2 (checked just above).
                return unsafe { $avx2($($arg),*) };
            }
            $body($($arg),*)
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        fn $avx2($($arg: $ty),*) -> $ret {
            $body($($arg),*)
        }
    };
}

pub(crate) use avx2_dispatch;
