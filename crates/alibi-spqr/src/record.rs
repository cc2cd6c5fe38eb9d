//! Our own protobuf encoding of an SPQR [`State`] for session records (libsignal stores its own
//! layout; states never cross implementations, only messages do). Decoding checks every size,
//! so a corrupted record is an error rather than a panic later.

use std::collections::VecDeque;

use prost::Message as _;
use zeroize::Zeroizing;

use crate::authenticator::{Authenticator, MAC_SIZE};
use crate::braid::Braid;
use crate::chain::{Chain, ChainParams, HalfLink, Link};
use crate::erasure_code::{Decoder, Encoder, POLYS};
use crate::incremental_ml_kem::{
    CT1_SIZE, CT2_SIZE, DK_SIZE, EK_SIZE, ENCAPS_STATE_SIZE, HEADER_SIZE,
};
use crate::{Direction, Error, Negotiation, State, Version};

const BAD: Error = Error::Malformed("SPQR state");

#[derive(Clone, PartialEq, prost::Message)]
struct StatePb {
    #[prost(message, optional, tag = "1")]
    negotiation: Option<NegotiationPb>,
    #[prost(message, optional, tag = "2")]
    chain: Option<ChainPb>,
    #[prost(message, optional, tag = "3")]
    braid: Option<BraidPb>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct NegotiationPb {
    #[prost(bytes = "vec", tag = "1")]
    auth_key: Vec<u8>,
    #[prost(bool, tag = "2")]
    a2b: bool,
    #[prost(uint32, tag = "3")]
    min_version: u32,
    #[prost(uint32, tag = "4")]
    max_jump: u32,
    #[prost(uint32, tag = "5")]
    max_ooo_keys: u32,
}

#[derive(Clone, PartialEq, prost::Message)]
struct ChainPb {
    #[prost(bool, tag = "1")]
    a2b: bool,
    #[prost(uint64, tag = "2")]
    current_epoch: u64,
    #[prost(uint64, tag = "3")]
    send_epoch: u64,
    #[prost(bytes = "vec", tag = "4")]
    next_root: Vec<u8>,
    #[prost(uint32, tag = "5")]
    max_jump: u32,
    #[prost(uint32, tag = "6")]
    max_ooo_keys: u32,
    #[prost(message, repeated, tag = "7")]
    links: Vec<LinkPb>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct LinkPb {
    #[prost(message, optional, tag = "1")]
    send: Option<HalfPb>,
    #[prost(message, optional, tag = "2")]
    recv: Option<HalfPb>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct HalfPb {
    #[prost(uint32, tag = "1")]
    ctr: u32,
    /// Empty once erased.
    #[prost(bytes = "vec", tag = "2")]
    next: Vec<u8>,
    /// 36-byte records: counter (big-endian) || key.
    #[prost(bytes = "vec", tag = "3")]
    skipped: Vec<u8>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct EncoderPb {
    #[prost(bytes = "vec", tag = "1")]
    message: Vec<u8>,
    #[prost(uint32, tag = "2")]
    next: u32,
    /// Present once computed: 16 polynomials, big-endian coefficients.
    #[prost(bytes = "vec", repeated, tag = "3")]
    polys: Vec<Vec<u8>>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct DecoderPb {
    /// 16 entries of 4-byte points, x || y.
    #[prost(bytes = "vec", repeated, tag = "1")]
    pts: Vec<Vec<u8>>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct BraidPb {
    #[prost(uint32, tag = "1")]
    kind: u32,
    #[prost(uint64, tag = "2")]
    epoch: u64,
    #[prost(bytes = "vec", tag = "3")]
    auth_root: Vec<u8>,
    #[prost(bytes = "vec", tag = "4")]
    auth_mac: Vec<u8>,
    #[prost(bytes = "vec", tag = "5")]
    ek: Vec<u8>,
    #[prost(bytes = "vec", tag = "6")]
    dk: Vec<u8>,
    #[prost(bytes = "vec", tag = "7")]
    header: Vec<u8>,
    #[prost(bytes = "vec", tag = "8")]
    encaps_state: Vec<u8>,
    #[prost(bytes = "vec", tag = "9")]
    ct1: Vec<u8>,
    #[prost(message, optional, tag = "10")]
    encoder: Option<EncoderPb>,
    #[prost(message, optional, tag = "11")]
    decoder: Option<DecoderPb>,
}

fn u16s(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_be_bytes()).collect()
}

fn from_u16s(b: &[u8]) -> Result<Vec<u16>, Error> {
    if !b.len().is_multiple_of(2) {
        return Err(BAD);
    }
    Ok(b.chunks_exact(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect())
}

fn enc_pb(e: &Encoder) -> EncoderPb {
    EncoderPb {
        message: u16s(&e.values),
        next: e.next,
        polys: e
            .polys
            .as_ref()
            .map(|ps| ps.iter().map(|p| u16s(p)).collect())
            .unwrap_or_default(),
    }
}

fn enc_from(pb: Option<EncoderPb>, len: usize) -> Result<Encoder, Error> {
    let pb = pb.ok_or(BAD)?;
    if pb.message.len() != len {
        return Err(BAD);
    }
    let mut e = Encoder::new(&pb.message).ok_or(BAD)?;
    e.next = pb.next;
    if !pb.polys.is_empty() {
        if pb.polys.len() != POLYS {
            return Err(BAD);
        }
        let polys = pb
            .polys
            .iter()
            .map(|p| from_u16s(p))
            .collect::<Result<Vec<_>, _>>()?;
        if polys.iter().any(|p| p.len() > len / 2 / POLYS + 1) {
            return Err(BAD);
        }
        e.polys = Some(polys);
    }
    Ok(e)
}

fn dec_pb(d: &Decoder) -> DecoderPb {
    DecoderPb {
        pts: d
            .pts
            .iter()
            .map(|ps| {
                ps.iter()
                    .flat_map(|(x, y)| [x.to_be_bytes(), y.to_be_bytes()].concat())
                    .collect()
            })
            .collect(),
    }
}

fn dec_from(pb: Option<DecoderPb>, len: usize) -> Result<Decoder, Error> {
    let pb = pb.ok_or(BAD)?;
    let mut d = Decoder::new(len).ok_or(BAD)?;
    if pb.pts.len() != POLYS {
        return Err(BAD);
    }
    for (slot, b) in d.pts.iter_mut().zip(&pb.pts) {
        if !b.len().is_multiple_of(4) || b.len() / 4 > 2 * (len / 2 / POLYS + 1) {
            return Err(BAD);
        }
        let pts: Vec<(u16, u16)> = b
            .chunks_exact(4)
            .map(|c| {
                (
                    u16::from_be_bytes([c[0], c[1]]),
                    u16::from_be_bytes([c[2], c[3]]),
                )
            })
            .collect();
        if pts.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(BAD);
        }
        *slot = pts;
    }
    Ok(d)
}

fn sized(b: Vec<u8>, n: usize) -> Result<Vec<u8>, Error> {
    if b.len() == n {
        Ok(b)
    } else {
        Err(BAD)
    }
}

fn braid_pb(b: &Braid) -> BraidPb {
    let mut pb = BraidPb::default();
    let auth = |pb: &mut BraidPb, a: &Authenticator| {
        pb.auth_root = a.root_key.to_vec();
        pb.auth_mac = a.mac_key.to_vec();
    };
    pb.epoch = b.epoch();
    match b {
        Braid::KeysUnsampled { auth: a, .. } => {
            pb.kind = 0;
            auth(&mut pb, a);
        }
        Braid::KeysSampled {
            auth: a,
            ek,
            dk,
            sending_header,
            ..
        } => {
            pb.kind = 1;
            auth(&mut pb, a);
            pb.ek = ek.clone();
            pb.dk = dk.to_vec();
            pb.encoder = Some(enc_pb(sending_header));
        }
        Braid::HeaderSent {
            auth: a,
            dk,
            sending_ek,
            receiving_ct1,
            ..
        } => {
            pb.kind = 2;
            auth(&mut pb, a);
            pb.dk = dk.to_vec();
            pb.encoder = Some(enc_pb(sending_ek));
            pb.decoder = Some(dec_pb(receiving_ct1));
        }
        Braid::Ct1Received {
            auth: a,
            dk,
            ct1,
            sending_ek,
            ..
        } => {
            pb.kind = 3;
            auth(&mut pb, a);
            pb.dk = dk.to_vec();
            pb.ct1 = ct1.clone();
            pb.encoder = Some(enc_pb(sending_ek));
        }
        Braid::EkSentCt1Received {
            auth: a,
            dk,
            ct1,
            receiving_ct2,
            ..
        } => {
            pb.kind = 4;
            auth(&mut pb, a);
            pb.dk = dk.to_vec();
            pb.ct1 = ct1.clone();
            pb.decoder = Some(dec_pb(receiving_ct2));
        }
        Braid::NoHeaderReceived {
            auth: a,
            receiving_header,
            ..
        } => {
            pb.kind = 5;
            auth(&mut pb, a);
            pb.decoder = Some(dec_pb(receiving_header));
        }
        Braid::HeaderReceived {
            auth: a,
            header,
            receiving_ek,
            ..
        } => {
            pb.kind = 6;
            auth(&mut pb, a);
            pb.header = header.clone();
            pb.decoder = Some(dec_pb(receiving_ek));
        }
        Braid::Ct1Sampled {
            auth: a,
            header,
            encaps_state,
            ct1,
            sending_ct1,
            receiving_ek,
            ..
        } => {
            pb.kind = 7;
            auth(&mut pb, a);
            pb.header = header.clone();
            pb.encaps_state = encaps_state.to_vec();
            pb.ct1 = ct1.clone();
            pb.encoder = Some(enc_pb(sending_ct1));
            pb.decoder = Some(dec_pb(receiving_ek));
        }
        Braid::EkReceivedCt1Sampled {
            auth: a,
            encaps_state,
            ek,
            ct1,
            sending_ct1,
            ..
        } => {
            pb.kind = 8;
            auth(&mut pb, a);
            pb.encaps_state = encaps_state.to_vec();
            pb.ek = ek.clone();
            pb.ct1 = ct1.clone();
            pb.encoder = Some(enc_pb(sending_ct1));
        }
        Braid::Ct1Acknowledged {
            auth: a,
            header,
            encaps_state,
            ct1,
            receiving_ek,
            ..
        } => {
            pb.kind = 9;
            auth(&mut pb, a);
            pb.header = header.clone();
            pb.encaps_state = encaps_state.to_vec();
            pb.ct1 = ct1.clone();
            pb.decoder = Some(dec_pb(receiving_ek));
        }
        Braid::Ct2Sampled {
            auth: a,
            sending_ct2,
            ..
        } => {
            pb.kind = 10;
            auth(&mut pb, a);
            pb.encoder = Some(enc_pb(sending_ct2));
        }
    }
    pb
}

fn braid_from(pb: BraidPb) -> Result<Braid, Error> {
    let epoch = pb.epoch;
    if epoch == 0 {
        return Err(BAD);
    }
    let auth = Authenticator {
        root_key: pb.auth_root.as_slice().try_into().map_err(|_| BAD)?,
        mac_key: pb.auth_mac.as_slice().try_into().map_err(|_| BAD)?,
    };
    let dk = || sized(pb.dk.clone(), DK_SIZE).map(Zeroizing::new);
    let es = || sized(pb.encaps_state.clone(), ENCAPS_STATE_SIZE).map(Zeroizing::new);
    let header = || sized(pb.header.clone(), HEADER_SIZE);
    let ct1 = || sized(pb.ct1.clone(), CT1_SIZE);
    let ek = || sized(pb.ek.clone(), EK_SIZE);
    let enc = |len| enc_from(pb.encoder.clone(), len);
    let dec = |len| dec_from(pb.decoder.clone(), len);
    Ok(match pb.kind {
        0 => Braid::KeysUnsampled { epoch, auth },
        1 => Braid::KeysSampled {
            epoch,
            auth,
            ek: ek()?,
            dk: dk()?,
            sending_header: enc(HEADER_SIZE + MAC_SIZE)?,
        },
        2 => Braid::HeaderSent {
            epoch,
            auth,
            dk: dk()?,
            sending_ek: enc(EK_SIZE)?,
            receiving_ct1: dec(CT1_SIZE)?,
        },
        3 => Braid::Ct1Received {
            epoch,
            auth,
            dk: dk()?,
            ct1: ct1()?,
            sending_ek: enc(EK_SIZE)?,
        },
        4 => Braid::EkSentCt1Received {
            epoch,
            auth,
            dk: dk()?,
            ct1: ct1()?,
            receiving_ct2: dec(CT2_SIZE + MAC_SIZE)?,
        },
        5 => Braid::NoHeaderReceived {
            epoch,
            auth,
            receiving_header: dec(HEADER_SIZE + MAC_SIZE)?,
        },
        6 => Braid::HeaderReceived {
            epoch,
            auth,
            header: header()?,
            receiving_ek: dec(EK_SIZE)?,
        },
        7 => Braid::Ct1Sampled {
            epoch,
            auth,
            header: header()?,
            encaps_state: es()?,
            ct1: ct1()?,
            sending_ct1: enc(CT1_SIZE)?,
            receiving_ek: dec(EK_SIZE)?,
        },
        8 => Braid::EkReceivedCt1Sampled {
            epoch,
            auth,
            encaps_state: es()?,
            ek: ek()?,
            ct1: ct1()?,
            sending_ct1: enc(CT1_SIZE)?,
        },
        9 => Braid::Ct1Acknowledged {
            epoch,
            auth,
            header: header()?,
            encaps_state: es()?,
            ct1: ct1()?,
            receiving_ek: dec(EK_SIZE)?,
        },
        10 => Braid::Ct2Sampled {
            epoch,
            auth,
            sending_ct2: enc(CT2_SIZE + MAC_SIZE)?,
        },
        _ => return Err(BAD),
    })
}

fn half_pb(h: &HalfLink) -> HalfPb {
    HalfPb {
        ctr: h.ctr,
        next: h.next.map(|k| k.to_vec()).unwrap_or_default(),
        skipped: h
            .skipped
            .iter()
            .flat_map(|(c, k)| [&c.to_be_bytes()[..], &k[..]].concat())
            .collect(),
    }
}

fn half_from(pb: Option<HalfPb>, params: &ChainParams) -> Result<HalfLink, Error> {
    let pb = pb.ok_or(BAD)?;
    let next = match pb.next.len() {
        0 => None,
        32 => Some(pb.next.as_slice().try_into().map_err(|_| BAD)?),
        _ => return Err(BAD),
    };
    if !pb.skipped.len().is_multiple_of(36)
        || pb.skipped.len() / 36 > params.max_ooo_keys as usize * 2 + 2
    {
        return Err(BAD);
    }
    let skipped = pb
        .skipped
        .chunks_exact(36)
        .map(|r| {
            let c = u32::from_be_bytes([r[0], r[1], r[2], r[3]]);
            let k: [u8; 32] = r[4..].try_into().expect("36-byte record");
            (c, k)
        })
        .collect();
    Ok(HalfLink {
        ctr: pb.ctr,
        next,
        skipped,
    })
}

fn dir(a2b: bool) -> Direction {
    if a2b {
        Direction::A2B
    } else {
        Direction::B2A
    }
}

fn params(max_jump: u32, max_ooo_keys: u32) -> Result<ChainParams, Error> {
    if max_jump == 0 || max_ooo_keys == 0 || max_ooo_keys > 1_000_000 {
        return Err(BAD);
    }
    Ok(ChainParams {
        max_jump,
        max_ooo_keys,
    })
}

pub(crate) fn encode(s: &State) -> Vec<u8> {
    StatePb {
        negotiation: s.negotiation.as_ref().map(|n| NegotiationPb {
            auth_key: n.auth_key.to_vec(),
            a2b: n.direction == Direction::A2B,
            min_version: n.min_version as u32,
            max_jump: n.chain_params.max_jump,
            max_ooo_keys: n.chain_params.max_ooo_keys,
        }),
        chain: s.chain.as_ref().map(|c| ChainPb {
            a2b: c.dir == Direction::A2B,
            current_epoch: c.current_epoch,
            send_epoch: c.send_epoch,
            next_root: c.next_root.to_vec(),
            max_jump: c.params.max_jump,
            max_ooo_keys: c.params.max_ooo_keys,
            links: c
                .links
                .iter()
                .map(|l| LinkPb {
                    send: Some(half_pb(&l.send)),
                    recv: Some(half_pb(&l.recv)),
                })
                .collect(),
        }),
        braid: s.braid.as_ref().map(braid_pb),
    }
    .encode_to_vec()
}

pub(crate) fn decode(b: &[u8]) -> Result<State, Error> {
    let pb = StatePb::decode(b).map_err(|_| BAD)?;
    let negotiation = match pb.negotiation {
        None => None,
        Some(n) => Some(Negotiation {
            auth_key: Zeroizing::new(n.auth_key),
            direction: dir(n.a2b),
            min_version: match n.min_version {
                0 => Version::V0,
                1 => Version::V1,
                _ => return Err(BAD),
            },
            chain_params: params(n.max_jump, n.max_ooo_keys)?,
        }),
    };
    let chain = match pb.chain {
        None => None,
        Some(c) => {
            let p = params(c.max_jump, c.max_ooo_keys)?;
            if c.links.is_empty() || c.links.len() as u64 > c.current_epoch + 1 {
                return Err(BAD);
            }
            let links = c
                .links
                .into_iter()
                .map(|l| {
                    Ok(Link {
                        send: half_from(l.send, &p)?,
                        recv: half_from(l.recv, &p)?,
                    })
                })
                .collect::<Result<VecDeque<_>, Error>>()?;
            Some(Chain {
                dir: dir(c.a2b),
                current_epoch: c.current_epoch,
                send_epoch: c.send_epoch,
                links,
                next_root: Zeroizing::new(c.next_root.as_slice().try_into().map_err(|_| BAD)?),
                params: p,
            })
        }
    };
    Ok(State {
        negotiation,
        chain,
        braid: pb.braid.map(braid_from).transpose()?,
    })
}
