//! Test-only reference arithmetic, shared by the unit tests of several modules.

/// a * b in Z[x]/(x^n + 1) by the schoolbook method: the independent reference the fast products
/// (NTT, FFT, Karatsuba) are checked against.
pub fn negacyclic_schoolbook(a: &[i64], b: &[i64]) -> Vec<i64> {
    let n = a.len();
    let mut r = vec![0i64; n];
    for i in 0..n {
        for j in 0..n {
            let p = a[i] * b[j];
            if i + j < n {
                r[i + j] += p;
            } else {
                r[i + j - n] -= p;
            }
        }
    }
    r
}
