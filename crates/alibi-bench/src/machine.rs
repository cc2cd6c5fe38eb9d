//! The machine a report was measured on: CPU, its SIMD features, cores, OS, compiler.

/// What a reader needs to compare figures across machines.
#[derive(Clone, Debug)]
pub struct Machine {
    /// The CPU's model name (Linux: /proc/cpuinfo), or "unknown".
    pub cpu: String,
    /// The SIMD features our code dispatches on, as present on this CPU.
    pub simd: Vec<&'static str>,
    /// Threads the process may run at once.
    pub cores: usize,
    /// OS and architecture.
    pub os: String,
    /// The compiler that built this binary.
    pub rustc: &'static str,
}

impl Machine {
    /// This machine.
    pub fn here() -> Machine {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".into());
        Machine {
            cpu,
            simd: simd(),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            os: format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
            rustc: env!("ALIBI_RUSTC_VERSION"),
        }
    }

    /// One Markdown line per property.
    pub fn markdown(&self) -> String {
        format!(
            "- CPU: {}\n- SIMD: {}\n- cores (threads available): {}\n- OS: {}\n- compiler: {}\n",
            self.cpu,
            if self.simd.is_empty() {
                "none detected".to_string()
            } else {
                self.simd.join(", ")
            },
            self.cores,
            self.os,
            self.rustc
        )
    }
}

#[cfg(target_arch = "x86_64")]
fn simd() -> Vec<&'static str> {
    let mut v = vec![];
    macro_rules! probe {
        ($($f:tt),*) => {$(
            if std::arch::is_x86_feature_detected!($f) {
                v.push($f);
            }
        )*};
    }
    probe!(
        "sse4.2",
        "avx2",
        "fma",
        "avx512f",
        "avx512bw",
        "avx512vl",
        "avx512vbmi",
        "avx512ifma",
        "gfni",
        "vaes"
    );
    v
}

#[cfg(target_arch = "aarch64")]
fn simd() -> Vec<&'static str> {
    let mut v = vec![];
    if std::arch::is_aarch64_feature_detected!("neon") {
        v.push("neon");
    }
    v
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn simd() -> Vec<&'static str> {
    vec![]
}
