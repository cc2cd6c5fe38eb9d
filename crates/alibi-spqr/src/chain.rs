//! SPQR's symmetric chain: per-message keys for each epoch and direction, as libsignal's SPQR
//! derives them. The handshake's key starts epoch 0; every epoch secret the ML-KEM Braid emits
//! starts a new link. Each link has a sending and a receiving chain, stepped once per message
//! (`HKDF(0, next, counter || "Signal PQ Ratchet V1 Chain Next", 64)` = next chain key || message
//! key). Keys skipped by out-of-order messages are kept up to a bound, and older sending chains
//! are erased as soon as a later epoch is used (forward secrecy).

use std::collections::VecDeque;

use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use crate::kdf::{hkdf, ZERO_SALT};
use crate::{Direction, Epoch, Error};

const START_INFO: &[u8] = b"Signal PQ Ratchet V1 Chain  Start";
const ADD_EPOCH_INFO: &[u8] = b"Signal PQ Ratchet V1 Chain Add Epoch";
const NEXT_INFO: &[u8] = b"Signal PQ Ratchet V1 Chain Next";

/// Links kept before the one we currently send on.
const EPOCHS_KEPT_BEFORE_SEND_EPOCH: usize = 1;

/// Bounds on what a receiver does for out-of-order messages (libsignal's defaults: a jump of
/// at most 25,000 keys, at most 2,000 skipped keys kept).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChainParams {
    /// The furthest a message's counter may be ahead of the chain.
    pub max_jump: u32,
    /// Skipped keys kept per chain.
    pub max_ooo_keys: u32,
}

impl Default for ChainParams {
    fn default() -> Self {
        Self {
            max_jump: 25_000,
            max_ooo_keys: 2_000,
        }
    }
}

impl ChainParams {
    /// Skipped-key count at which old keys are trimmed (10 % slack over `max_ooo_keys`).
    fn trim_size(&self) -> usize {
        self.max_ooo_keys as usize * 11 / 10 + 1
    }
}

/// One direction of one epoch's link.
#[derive(Clone, Debug, PartialEq, Eq, Zeroize, ZeroizeOnDrop)]
pub(crate) struct HalfLink {
    pub(crate) ctr: u32,
    /// The next chain key; `None` once erased.
    pub(crate) next: Option<[u8; 32]>,
    /// Skipped keys: `(counter, key)`.
    pub(crate) skipped: Vec<(u32, [u8; 32])>,
}

impl HalfLink {
    fn new(key: &[u8]) -> Self {
        Self {
            ctr: 0,
            next: Some(key.try_into().expect("32-byte slice")),
            skipped: Vec::new(),
        }
    }

    /// One chain step: the counter it reaches and that counter's key.
    fn step(&mut self) -> Result<(u32, [u8; 32]), Error> {
        let next = self.next.as_mut().ok_or(Error::ChainErased)?;
        self.ctr = self.ctr.checked_add(1).ok_or(Error::ChainExhausted)?;
        let mut out = Zeroizing::new([0u8; 64]);
        hkdf(
            &ZERO_SALT,
            &next[..],
            &[&self.ctr.to_be_bytes(), NEXT_INFO],
            &mut out[..],
        );
        next.copy_from_slice(&out[..32]);
        let mut key = [0u8; 32];
        key.copy_from_slice(&out[32..]);
        Ok((self.ctr, key))
    }

    /// The key for counter `at`, stepping ahead or taking a skipped key.
    fn key_at(&mut self, at: u32, params: &ChainParams) -> Result<[u8; 32], Error> {
        let (at64, ctr64, ooo) = (at as u64, self.ctr as u64, params.max_ooo_keys as u64);
        if at < self.ctr {
            if at64 + ooo < ctr64 {
                return Err(Error::KeyTrimmed(at));
            }
            let pos = self
                .skipped
                .iter()
                .position(|(c, _)| *c == at)
                .ok_or(Error::KeyAlreadyUsed(at))?;
            return Ok(self.skipped.swap_remove(pos).1);
        }
        if at == self.ctr {
            return Err(Error::KeyAlreadyUsed(at));
        }
        if at - self.ctr > params.max_jump {
            return Err(Error::KeyJump(self.ctr, at));
        }
        if at64 > ctr64 + ooo {
            self.skipped.zeroize();
            self.skipped.clear();
        }
        while at > self.ctr + 1 {
            let k = self.step()?;
            if self.ctr as u64 + ooo >= at64 {
                self.skipped.push(k);
            }
        }
        self.trim(params);
        Ok(self.step()?.1)
    }

    /// Drops skipped keys more than `max_ooo_keys` behind once the list passes its trim size.
    fn trim(&mut self, params: &ChainParams) {
        if self.skipped.len() >= params.trim_size() {
            let horizon = self.ctr.saturating_sub(params.max_ooo_keys);
            self.skipped.retain(|(c, _)| *c >= horizon);
        }
    }
}

/// The sending and receiving halves of one epoch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Link {
    pub(crate) send: HalfLink,
    pub(crate) recv: HalfLink,
}

/// The chain of links, oldest first.
#[derive(Clone, PartialEq, Eq)]
pub struct Chain {
    pub(crate) dir: Direction,
    pub(crate) current_epoch: Epoch,
    pub(crate) send_epoch: Epoch,
    pub(crate) links: VecDeque<Link>,
    pub(crate) next_root: Zeroizing<[u8; 32]>,
    pub(crate) params: ChainParams,
}

impl Chain {
    fn link(okm: &[u8; 96], dir: Direction) -> Link {
        let part = |d: Direction| match d {
            Direction::A2B => &okm[32..64],
            Direction::B2A => &okm[64..96],
        };
        Link {
            send: HalfLink::new(part(dir)),
            recv: HalfLink::new(part(dir.switch())),
        }
    }

    /// Epoch 0's link, from the handshake's SPQR key.
    pub fn new(auth_key: &[u8], dir: Direction, params: ChainParams) -> Self {
        let mut okm = Zeroizing::new([0u8; 96]);
        hkdf(&ZERO_SALT, auth_key, &[START_INFO], &mut okm[..]);
        let mut next_root = Zeroizing::new([0u8; 32]);
        next_root.copy_from_slice(&okm[..32]);
        Self {
            dir,
            current_epoch: 0,
            send_epoch: 0,
            links: VecDeque::from([Self::link(&okm, dir)]),
            next_root,
            params,
        }
    }

    /// Starts the link of `epoch` (which must follow the current one) from its secret.
    pub fn add_epoch(&mut self, epoch: Epoch, secret: &[u8]) -> Result<(), Error> {
        if Some(epoch) != self.current_epoch.checked_add(1) {
            return Err(Error::EpochOutOfRange(epoch));
        }
        let mut okm = Zeroizing::new([0u8; 96]);
        hkdf(&self.next_root[..], secret, &[ADD_EPOCH_INFO], &mut okm[..]);
        self.next_root.copy_from_slice(&okm[..32]);
        self.current_epoch = epoch;
        self.links.push_back(Self::link(&okm, self.dir));
        Ok(())
    }

    fn index_of(&self, epoch: Epoch) -> Result<usize, Error> {
        if epoch > self.current_epoch {
            return Err(Error::EpochOutOfRange(epoch));
        }
        let back = (self.current_epoch - epoch) as usize;
        if back >= self.links.len() {
            return Err(Error::EpochOutOfRange(epoch));
        }
        Ok(self.links.len() - 1 - back)
    }

    /// The next sending key of `epoch`, with its counter. Moving to a later epoch drops older
    /// links but one and erases their sending chains.
    pub fn send_key(&mut self, epoch: Epoch) -> Result<(u32, [u8; 32]), Error> {
        if epoch < self.send_epoch {
            return Err(Error::SendEpochDecreased(self.send_epoch, epoch));
        }
        let mut i = self.index_of(epoch)?;
        if self.send_epoch != epoch {
            self.send_epoch = epoch;
            while i > EPOCHS_KEPT_BEFORE_SEND_EPOCH {
                self.links.pop_front();
                i -= 1;
            }
            for link in self.links.iter_mut().take(i) {
                if let Some(mut k) = link.send.next.take() {
                    k.zeroize();
                }
            }
        }
        self.links[i].send.step()
    }

    /// The receiving key of `epoch` at counter `at`.
    pub fn recv_key(&mut self, epoch: Epoch, at: u32) -> Result<[u8; 32], Error> {
        let i = self.index_of(epoch)?;
        let params = self.params;
        self.links[i].recv.key_at(at, &params)
    }
}

/// Epochs and direction only: the links hold chain keys.
impl core::fmt::Debug for Chain {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Chain")
            .field("dir", &self.dir)
            .field("current_epoch", &self.current_epoch)
            .field("send_epoch", &self.send_epoch)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions_meet() {
        let p = ChainParams::default();
        let mut a = Chain::new(b"k", Direction::A2B, p);
        let mut b = Chain::new(b"k", Direction::B2A, p);
        let (i, k) = a.send_key(0).unwrap();
        assert_eq!(i, 1);
        assert_eq!(b.recv_key(0, 1).unwrap(), k);
        a.add_epoch(1, &[2]).unwrap();
        b.add_epoch(1, &[2]).unwrap();
        let keys: Vec<_> = (0..10).map(|_| a.send_key(1).unwrap()).collect();
        // Out of order, then a replay.
        assert_eq!(b.recv_key(1, 10).unwrap(), keys[9].1);
        assert_eq!(b.recv_key(1, 3).unwrap(), keys[2].1);
        assert_eq!(b.recv_key(1, 3), Err(Error::KeyAlreadyUsed(3)));
        assert_eq!(b.recv_key(1, 10), Err(Error::KeyAlreadyUsed(10)));
        // Epoch 0's sending chain is erased once epoch 1 is used.
        assert_eq!(a.send_key(0), Err(Error::SendEpochDecreased(1, 0)));
        assert_eq!(b.recv_key(2, 1), Err(Error::EpochOutOfRange(2)));
        assert_eq!(a.add_epoch(3, &[1]), Err(Error::EpochOutOfRange(3)));
    }

    #[test]
    fn jumps_and_trimming_are_bounded() {
        let p = ChainParams {
            max_jump: 100,
            max_ooo_keys: 10,
        };
        let mut b = Chain::new(b"k", Direction::B2A, p);
        assert_eq!(b.recv_key(0, 101), Err(Error::KeyJump(0, 101)));
        b.recv_key(0, 100).unwrap();
        // Only the last 10 skipped keys are kept.
        assert_eq!(b.links[0].recv.skipped.len(), 10);
        assert_eq!(b.recv_key(0, 50), Err(Error::KeyTrimmed(50)));
        b.recv_key(0, 95).unwrap();
    }
}
