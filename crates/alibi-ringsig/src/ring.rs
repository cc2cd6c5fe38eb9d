//! The ring both schemes sign for: an ordered list of 2 to [`MAX_MEMBERS`] distinct public keys
//! of one parameter set, with the checks that make a list of keys one. GANDALF's and MAYO-RS's
//! rings hold one each and add what their hash needs.

use crate::Error;

/// The largest ring this crate signs for or verifies.
pub const MAX_MEMBERS: usize = 1024;

/// A public key that can be a ring member.
pub(crate) trait Member: PartialEq {
    /// What every member of one ring shares: a Falcon level, a MAYO parameter set.
    type Params: Copy + PartialEq;
    /// The error for a ring whose members differ in it.
    const MIXED: Error;
    /// This key's parameter set.
    fn params(&self) -> Self::Params;
}

/// The members of a ring, in ring order (the order is hashed, so it matters).
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Members<K> {
    keys: Vec<K>,
}

impl<K: Member> Members<K> {
    /// Checks `keys`, in this order: at least two, at most [`MAX_MEMBERS`], one parameter set,
    /// `check` (what a scheme adds on the parameter set), no key twice.
    pub(crate) fn new(
        keys: Vec<K>,
        check: impl FnOnce(K::Params) -> Result<(), Error>,
    ) -> Result<Self, Error> {
        if keys.len() < 2 {
            return Err(Error::RingTooSmall(keys.len()));
        }
        if keys.len() > MAX_MEMBERS {
            return Err(Error::RingTooLarge(keys.len()));
        }
        let params = keys[0].params();
        if keys.iter().any(|k| k.params() != params) {
            return Err(K::MIXED);
        }
        check(params)?;
        for (i, k) in keys.iter().enumerate() {
            if keys[..i].contains(k) {
                return Err(Error::DuplicateMember(i));
            }
        }
        Ok(Members { keys })
    }

    /// The parameter set every member shares.
    pub(crate) fn params(&self) -> K::Params {
        // Never empty: `new` refuses fewer than two keys.
        self.keys[0].params()
    }

    /// The keys, in ring order.
    pub(crate) fn keys(&self) -> &[K] {
        &self.keys
    }

    /// The number of members.
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    /// Where the first member for which `is` holds sits.
    pub(crate) fn position(&self, is: impl Fn(&K) -> bool) -> Option<usize> {
        self.keys.iter().position(is)
    }
}

/// As the list of keys, so that a ring's `Debug` shows its members as a list.
impl<K: core::fmt::Debug> core::fmt::Debug for Members<K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.keys.fmt(f)
    }
}
