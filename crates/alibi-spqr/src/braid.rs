//! The ML-KEM Braid (Signal's ML-KEM Braid specification, section 2): a sparse continuous key
//! agreement in which, each epoch, one party sends a fresh ML-KEM-768 encapsulation key (header
//! first, then the vector) and the other answers with a ciphertext (`ct1` as soon as the header is
//! in, `ct2` once the whole key is), every piece erasure-coded into 32-byte chunks, one chunk per
//! message. The roles swap every epoch. The states are the specification's: the key sender
//! goes KeysUnsampled → KeysSampled → HeaderSent → Ct1Received → EkSentCt1Received; the
//! ciphertext sender goes NoHeaderReceived → HeaderReceived → Ct1Sampled → (EkReceivedCt1Sampled
//! or Ct1Acknowledged) → Ct2Sampled.

use rand_core::CryptoRng;
use zeroize::Zeroizing;

use crate::authenticator::{Authenticator, MAC_SIZE};
use crate::erasure_code::{Decoder, Encoder};
use crate::incremental_ml_kem::{self as kem, CT1_SIZE, CT2_SIZE, EK_SIZE, HEADER_SIZE};
use crate::kdf::{hkdf, ZERO_SALT};
use crate::message::{Message, Payload};
use crate::{Epoch, Error};

const SCKA_KEY_INFO: &[u8] = b"Signal_PQCKA_V1_MLKEM768:SCKA Key";

/// An epoch's shared secret, as the Braid emits it.
pub struct EpochSecret {
    /// The epoch it starts.
    pub epoch: Epoch,
    /// 32 bytes.
    pub secret: Zeroizing<[u8; 32]>,
}

fn epoch_secret(epoch: Epoch, shared_secret: &[u8]) -> EpochSecret {
    let mut secret = Zeroizing::new([0u8; 32]);
    hkdf(
        &ZERO_SALT,
        shared_secret,
        &[SCKA_KEY_INFO, &epoch.to_be_bytes()],
        &mut secret[..],
    );
    EpochSecret { epoch, secret }
}

fn decoder(len: usize) -> Decoder {
    Decoder::new(len).expect("the Braid's lengths are even")
}

fn encoder(msg: &[u8]) -> Encoder {
    Encoder::new(msg).expect("the Braid's lengths are even and small")
}

/// A Braid party's state.
#[derive(Clone, PartialEq, Eq)]
#[allow(missing_docs)] // The fields are the specification's; each variant says what it waits for.
pub enum Braid {
    /// Key sender, before sampling this epoch's key pair.
    KeysUnsampled { epoch: Epoch, auth: Authenticator },
    /// Key sender, sending the header's chunks until the first `ct1` chunk arrives.
    KeysSampled {
        epoch: Epoch,
        auth: Authenticator,
        ek: Vec<u8>,
        dk: Zeroizing<Vec<u8>>,
        sending_header: Encoder,
    },
    /// Key sender, sending the key's chunks and collecting `ct1`.
    HeaderSent {
        epoch: Epoch,
        auth: Authenticator,
        dk: Zeroizing<Vec<u8>>,
        sending_ek: Encoder,
        receiving_ct1: Decoder,
    },
    /// Key sender with all of `ct1`, acknowledging it while still sending the key.
    Ct1Received {
        epoch: Epoch,
        auth: Authenticator,
        dk: Zeroizing<Vec<u8>>,
        ct1: Vec<u8>,
        sending_ek: Encoder,
    },
    /// Key sender collecting `ct2`.
    EkSentCt1Received {
        epoch: Epoch,
        auth: Authenticator,
        dk: Zeroizing<Vec<u8>>,
        ct1: Vec<u8>,
        receiving_ct2: Decoder,
    },
    /// Ciphertext sender, collecting the header.
    NoHeaderReceived {
        epoch: Epoch,
        auth: Authenticator,
        receiving_header: Decoder,
    },
    /// Ciphertext sender with the header, about to encapsulate on its next send.
    HeaderReceived {
        epoch: Epoch,
        auth: Authenticator,
        header: Vec<u8>,
        receiving_ek: Decoder,
    },
    /// Ciphertext sender, sending `ct1` and collecting the key.
    Ct1Sampled {
        epoch: Epoch,
        auth: Authenticator,
        header: Vec<u8>,
        encaps_state: Zeroizing<Vec<u8>>,
        ct1: Vec<u8>,
        sending_ct1: Encoder,
        receiving_ek: Decoder,
    },
    /// Ciphertext sender with the whole key, sending `ct1` until it is acknowledged.
    EkReceivedCt1Sampled {
        epoch: Epoch,
        auth: Authenticator,
        encaps_state: Zeroizing<Vec<u8>>,
        ek: Vec<u8>,
        ct1: Vec<u8>,
        sending_ct1: Encoder,
    },
    /// Ciphertext sender whose `ct1` is acknowledged, still collecting the key.
    Ct1Acknowledged {
        epoch: Epoch,
        auth: Authenticator,
        header: Vec<u8>,
        encaps_state: Zeroizing<Vec<u8>>,
        ct1: Vec<u8>,
        receiving_ek: Decoder,
    },
    /// Ciphertext sender, sending `ct2` until the other side moves to the next epoch.
    Ct2Sampled {
        epoch: Epoch,
        auth: Authenticator,
        sending_ct2: Encoder,
    },
}

/// What a send produces.
pub struct Sent {
    /// The message (its counter is set by the caller).
    pub message: Message,
    /// A new epoch secret, when this send encapsulated.
    pub secret: Option<EpochSecret>,
}

/// The ciphertext sender with the whole key and `ct1` acknowledged: `ct2`, and the state that
/// sends `ct2 || MAC(ct1 || ct2)`.
fn ct2_sampled(
    epoch: Epoch,
    auth: Authenticator,
    encaps_state: &[u8],
    ek: &[u8],
    ct1: &[u8],
) -> Braid {
    let ct2 = kem::encaps2(encaps_state, ek);
    let mac = auth.mac_ciphertext(epoch, &[ct1, &ct2].concat());
    Braid::Ct2Sampled {
        epoch,
        auth,
        sending_ct2: encoder(&[&ct2[..], &mac[..]].concat()),
    }
}

/// The encapsulation key must be the one the authenticated header's hash commits to.
fn check_ek(ek: &[u8], header: &[u8]) -> Result<(), Error> {
    if kem::ek_matches_header(ek, header) {
        Ok(())
    } else {
        Err(Error::EkMismatch)
    }
}

impl Braid {
    /// The initiator's start (Alice sends the first key).
    pub fn init_a(auth_key: &[u8]) -> Self {
        Braid::KeysUnsampled {
            epoch: 1,
            auth: Authenticator::new(auth_key, 1),
        }
    }

    /// The responder's start.
    pub fn init_b(auth_key: &[u8]) -> Self {
        Braid::NoHeaderReceived {
            epoch: 1,
            auth: Authenticator::new(auth_key, 1),
            receiving_header: decoder(HEADER_SIZE + MAC_SIZE),
        }
    }

    /// The state's epoch.
    pub fn epoch(&self) -> Epoch {
        match self {
            Braid::KeysUnsampled { epoch, .. }
            | Braid::KeysSampled { epoch, .. }
            | Braid::HeaderSent { epoch, .. }
            | Braid::Ct1Received { epoch, .. }
            | Braid::EkSentCt1Received { epoch, .. }
            | Braid::NoHeaderReceived { epoch, .. }
            | Braid::HeaderReceived { epoch, .. }
            | Braid::Ct1Sampled { epoch, .. }
            | Braid::EkReceivedCt1Sampled { epoch, .. }
            | Braid::Ct1Acknowledged { epoch, .. }
            | Braid::Ct2Sampled { epoch, .. } => *epoch,
        }
    }

    /// Produces the next message's payload, moving on where sending does: the key sender
    /// samples its key pair on its first send of an epoch, the ciphertext sender encapsulates on
    /// its first send after the header (emitting the epoch's secret); every other send is the
    /// next chunk of whatever the state is sending.
    pub fn send<R: CryptoRng + ?Sized>(self, rng: &mut R) -> (Self, Sent) {
        let epoch = self.epoch();
        let (next, payload, secret) = match self {
            Braid::KeysUnsampled { epoch, auth } => {
                let keys = kem::generate(rng);
                let mac = auth.mac_header(epoch, &keys.header);
                let mut sending_header = encoder(&[&keys.header[..], &mac[..]].concat());
                let chunk = sending_header.next_chunk();
                let next = Braid::KeysSampled {
                    epoch,
                    auth,
                    ek: keys.ek,
                    dk: keys.dk,
                    sending_header,
                };
                (next, Payload::Header(chunk), None)
            }
            Braid::HeaderReceived {
                epoch,
                mut auth,
                header,
                receiving_ek,
            } => {
                let (ct1, encaps_state, ss) = kem::encaps1(&header, rng);
                let es = epoch_secret(epoch, &ss);
                auth.update(epoch, &es.secret[..]);
                let mut sending_ct1 = encoder(&ct1);
                let chunk = sending_ct1.next_chunk();
                let next = Braid::Ct1Sampled {
                    epoch,
                    auth,
                    header,
                    encaps_state,
                    ct1,
                    sending_ct1,
                    receiving_ek,
                };
                (next, Payload::Ct1(chunk), Some(es))
            }
            mut other => {
                let payload = other.next_payload();
                (other, payload, None)
            }
        };
        let message = Message {
            epoch,
            counter: 0,
            payload,
        };
        (next, Sent { message, secret })
    }

    /// The payload of a send that does not change the state's kind.
    fn next_payload(&mut self) -> Payload {
        match self {
            Braid::KeysSampled { sending_header, .. } => {
                Payload::Header(sending_header.next_chunk())
            }
            Braid::HeaderSent { sending_ek, .. } => Payload::Ek(sending_ek.next_chunk()),
            Braid::Ct1Received { sending_ek, .. } => Payload::EkCt1Ack(sending_ek.next_chunk()),
            Braid::EkSentCt1Received { .. } => Payload::Ct1Ack,
            Braid::Ct1Sampled { sending_ct1, .. }
            | Braid::EkReceivedCt1Sampled { sending_ct1, .. } => {
                Payload::Ct1(sending_ct1.next_chunk())
            }
            Braid::Ct2Sampled { sending_ct2, .. } => Payload::Ct2(sending_ct2.next_chunk()),
            Braid::KeysUnsampled { .. }
            | Braid::NoHeaderReceived { .. }
            | Braid::HeaderReceived { .. }
            | Braid::Ct1Acknowledged { .. } => Payload::None,
        }
    }

    /// Takes a received message. Messages of earlier epochs change nothing; a later epoch is an
    /// error, except the ciphertext sender's cue that the other side finished the epoch.
    pub fn recv(self, msg: &Message) -> Result<(Self, Option<EpochSecret>), Error> {
        let epoch = self.epoch();
        if msg.epoch > epoch {
            return match self {
                Braid::Ct2Sampled { epoch, auth, .. } if msg.epoch == epoch + 1 => Ok((
                    Braid::KeysUnsampled {
                        epoch: epoch + 1,
                        auth,
                    },
                    None,
                )),
                _ => Err(Error::EpochOutOfRange(msg.epoch)),
            };
        }
        if msg.epoch < epoch {
            return Ok((self, None));
        }
        let mut secret = None;
        let next = match (self, &msg.payload) {
            (
                Braid::KeysSampled {
                    epoch,
                    auth,
                    ek,
                    dk,
                    ..
                },
                Payload::Ct1(chunk),
            ) => {
                let mut receiving_ct1 = decoder(CT1_SIZE);
                receiving_ct1.add_chunk(chunk);
                Braid::HeaderSent {
                    epoch,
                    auth,
                    dk,
                    sending_ek: encoder(&ek),
                    receiving_ct1,
                }
            }
            (
                Braid::HeaderSent {
                    epoch,
                    auth,
                    dk,
                    sending_ek,
                    mut receiving_ct1,
                },
                Payload::Ct1(chunk),
            ) => {
                receiving_ct1.add_chunk(chunk);
                match receiving_ct1.decoded() {
                    Some(ct1) => Braid::Ct1Received {
                        epoch,
                        auth,
                        dk,
                        ct1,
                        sending_ek,
                    },
                    None => Braid::HeaderSent {
                        epoch,
                        auth,
                        dk,
                        sending_ek,
                        receiving_ct1,
                    },
                }
            }
            (
                Braid::Ct1Received {
                    epoch,
                    auth,
                    dk,
                    ct1,
                    ..
                },
                Payload::Ct2(chunk),
            ) => {
                let mut receiving_ct2 = decoder(CT2_SIZE + MAC_SIZE);
                receiving_ct2.add_chunk(chunk);
                Braid::EkSentCt1Received {
                    epoch,
                    auth,
                    dk,
                    ct1,
                    receiving_ct2,
                }
            }
            (
                Braid::EkSentCt1Received {
                    epoch,
                    mut auth,
                    dk,
                    ct1,
                    mut receiving_ct2,
                },
                Payload::Ct2(chunk),
            ) => {
                receiving_ct2.add_chunk(chunk);
                match receiving_ct2.decoded() {
                    Some(ct2_mac) => {
                        let (ct2, mac) = ct2_mac.split_at(CT2_SIZE);
                        let ss = kem::decaps(&dk, &ct1, ct2);
                        let es = epoch_secret(epoch, &ss);
                        auth.update(epoch, &es.secret[..]);
                        auth.verify_ciphertext(epoch, &[&ct1[..], ct2].concat(), mac)?;
                        secret = Some(es);
                        Braid::NoHeaderReceived {
                            epoch: epoch + 1,
                            auth,
                            receiving_header: decoder(HEADER_SIZE + MAC_SIZE),
                        }
                    }
                    None => Braid::EkSentCt1Received {
                        epoch,
                        auth,
                        dk,
                        ct1,
                        receiving_ct2,
                    },
                }
            }
            (
                Braid::NoHeaderReceived {
                    epoch,
                    auth,
                    mut receiving_header,
                },
                Payload::Header(chunk),
            ) => {
                receiving_header.add_chunk(chunk);
                match receiving_header.decoded() {
                    Some(h) => {
                        let (header, mac) = h.split_at(HEADER_SIZE);
                        auth.verify_header(epoch, header, mac)?;
                        Braid::HeaderReceived {
                            epoch,
                            auth,
                            header: header.to_vec(),
                            receiving_ek: decoder(EK_SIZE),
                        }
                    }
                    None => Braid::NoHeaderReceived {
                        epoch,
                        auth,
                        receiving_header,
                    },
                }
            }
            (
                Braid::Ct1Sampled {
                    epoch,
                    auth,
                    header,
                    encaps_state,
                    ct1,
                    sending_ct1,
                    mut receiving_ek,
                },
                p @ (Payload::Ek(chunk) | Payload::EkCt1Ack(chunk)),
            ) => {
                let acked = matches!(p, Payload::EkCt1Ack(_));
                receiving_ek.add_chunk(chunk);
                match receiving_ek.decoded() {
                    Some(ek) => {
                        check_ek(&ek, &header)?;
                        if acked {
                            ct2_sampled(epoch, auth, &encaps_state, &ek, &ct1)
                        } else {
                            Braid::EkReceivedCt1Sampled {
                                epoch,
                                auth,
                                encaps_state,
                                ek,
                                ct1,
                                sending_ct1,
                            }
                        }
                    }
                    None if acked => Braid::Ct1Acknowledged {
                        epoch,
                        auth,
                        header,
                        encaps_state,
                        ct1,
                        receiving_ek,
                    },
                    None => Braid::Ct1Sampled {
                        epoch,
                        auth,
                        header,
                        encaps_state,
                        ct1,
                        sending_ct1,
                        receiving_ek,
                    },
                }
            }
            (
                Braid::EkReceivedCt1Sampled {
                    epoch,
                    auth,
                    encaps_state,
                    ek,
                    ct1,
                    ..
                },
                Payload::Ct1Ack | Payload::EkCt1Ack(_),
            ) => ct2_sampled(epoch, auth, &encaps_state, &ek, &ct1),
            (
                Braid::Ct1Acknowledged {
                    epoch,
                    auth,
                    header,
                    encaps_state,
                    ct1,
                    mut receiving_ek,
                },
                Payload::Ek(chunk) | Payload::EkCt1Ack(chunk),
            ) => {
                receiving_ek.add_chunk(chunk);
                match receiving_ek.decoded() {
                    Some(ek) => {
                        check_ek(&ek, &header)?;
                        ct2_sampled(epoch, auth, &encaps_state, &ek, &ct1)
                    }
                    None => Braid::Ct1Acknowledged {
                        epoch,
                        auth,
                        header,
                        encaps_state,
                        ct1,
                        receiving_ek,
                    },
                }
            }
            // Every other pairing carries nothing for this state.
            (s, _) => s,
        };
        Ok((next, secret))
    }
}

/// The epoch alone: the state holds decapsulation keys and secrets.
impl core::fmt::Debug for Braid {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Braid(epoch {}, ..)", self.epoch())
    }
}
