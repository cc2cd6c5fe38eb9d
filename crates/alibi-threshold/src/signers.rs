//! The one check of a run's parameters: key generation's `(i, n, t)` and a signer list.

use crate::Error;

/// Why a signer list cannot sign with a share ([`signer_position`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SignerFault {
    /// Not exactly `t + 1` signers.
    #[error("signing needs exactly {needed} signers, {given} given")]
    Count {
        /// `t + 1`.
        needed: usize,
        /// The list's length.
        given: usize,
    },
    /// A keygen index listed twice.
    #[error("signer {0} is listed twice")]
    Twice(u16),
    /// A keygen index that no party holds (not below `n`).
    #[error("signer {index} is not below n = {n}")]
    Unknown {
        /// The index listed.
        index: u16,
        /// The number of parties of key generation.
        n: u16,
    },
    /// The list leaves out the party whose share signs.
    #[error("this party ({0}) is not among the signers")]
    NotAmong(u16),
}

/// This party's position in `signers` (its round-based index in the signing run), after
/// checking the list: exactly `t + 1` distinct keygen indices below `n`, `me` among them.
pub fn signer_position(signers: &[u16], t: u16, n: u16, me: u16) -> Result<u16, SignerFault> {
    let needed = usize::from(t) + 1;
    if signers.len() != needed {
        return Err(SignerFault::Count {
            needed,
            given: signers.len(),
        });
    }
    for (k, &index) in signers.iter().enumerate() {
        if index >= n {
            return Err(SignerFault::Unknown { index, n });
        }
        if signers[..k].contains(&index) {
            return Err(SignerFault::Twice(index));
        }
    }
    signers
        .iter()
        .position(|&s| s == me)
        .and_then(|p| u16::try_from(p).ok())
        .ok_or(SignerFault::NotAmong(me))
}

/// Refuses key-generation parameters the protocols cannot run: `0 <= i < n` and `1 <= t < n`
/// (any `t + 1` of the `n` parties sign, so at least two parties hold the key).
pub fn check_keygen(i: u16, n: u16, t: u16) -> Result<(), Error> {
    if i >= n || t == 0 || t >= n {
        return Err(Error::Parameters(format!(
            "key generation needs 0 <= i < n and 1 <= t < n, got i = {i}, n = {n}, t = {t}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fault_is_named() {
        assert_eq!(signer_position(&[4, 1], 1, 5, 1), Ok(1));
        assert_eq!(
            signer_position(&[0, 1, 2], 1, 5, 1),
            Err(SignerFault::Count {
                needed: 2,
                given: 3
            })
        );
        assert_eq!(
            signer_position(&[0, 5], 1, 5, 0),
            Err(SignerFault::Unknown { index: 5, n: 5 })
        );
        assert_eq!(
            signer_position(&[3, 3], 1, 5, 3),
            Err(SignerFault::Twice(3))
        );
        assert_eq!(
            signer_position(&[0, 2], 1, 5, 1),
            Err(SignerFault::NotAmong(1))
        );
    }

    #[test]
    fn keygen_parameters() {
        assert!(check_keygen(0, 2, 1).is_ok());
        assert!(check_keygen(4, 5, 4).is_ok());
        for (i, n, t) in [(2, 2, 1), (0, 3, 0), (0, 3, 3), (0, 1, 0), (0, 0, 0)] {
            assert!(
                matches!(check_keygen(i, n, t), Err(Error::Parameters(_))),
                "{i} {n} {t}"
            );
        }
    }
}
