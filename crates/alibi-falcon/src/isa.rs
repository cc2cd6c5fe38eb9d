//! The two builds of the floating-point half of signing (the FFT, split and merge, the LDL tree,
//! ffSampling and SamplerZ): the same source compiled for the target's baseline and with AVX2 and
//! FMA enabled, chosen once per call at run time, as the mod-q NTT is (`modq::avx2_dispatch`).
//!
//! The choice is a value: code generic over [`Isa`] runs its body through [`Isa::run`], which for
//! [`Avx2Fma`] enters a function compiled with those features; the body's callees are
//! `#[inline(always)]`, so they are compiled into it. [`Avx2Fma`] can only be had from
//! [`Avx2Fma::detect`], which is what makes entering that function sound.
//!
//! Both builds give the same bits: Rust never contracts `a * b + c` into a fused multiply-add
//! unless asked (`mul_add`), so FMA being available changes no rounding, and wider vectors
//! only evaluate the same IEEE operations several at a time. A test compares both builds.

/// A build to run the floating-point code on.
pub(crate) trait Isa: Copy {
    /// Runs `f` compiled for this build (when `f` is inlined, which its single call makes
    /// likely, and its callees are `#[inline(always)]`).
    fn run<R>(self, f: impl FnOnce() -> R) -> R;
}

/// The target's baseline (SSE2 on x86-64).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Portable;

impl Isa for Portable {
    #[inline(always)]
    fn run<R>(self, f: impl FnOnce() -> R) -> R {
        f()
    }
}

/// AVX2 and FMA: a proof that the CPU has them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2Fma(());

impl Avx2Fma {
    /// The proof, if this CPU has both (std caches the CPUID answer).
    #[inline]
    pub(crate) fn detect() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return Some(Avx2Fma(()));
        }
        None
    }
}

impl Isa for Avx2Fma {
    #[inline(always)]
    fn run<R>(self, f: impl FnOnce() -> R) -> R {
        #[cfg(target_arch = "x86_64")]
        {
            #[allow(unsafe_code)]
            // SAFETY: an `Avx2Fma` exists only where `detect` found both features.
            unsafe {
                run_avx2_fma(f)
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        f()
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn run_avx2_fma<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Evaluates `$e` with `$isa` bound to the fastest build this CPU has: the expression is
/// compiled once per build.
macro_rules! on_best_isa {
    ($isa:ident => $e:expr) => {
        match $crate::isa::Avx2Fma::detect() {
            Some($isa) => $e,
            None => {
                let $isa = $crate::isa::Portable;
                $e
            }
        }
    };
}

pub(crate) use on_best_isa;
