//! The `round-based` 0.4 adapter: a [`round_based::Delivery`] over a [`Net`], so that a protocol
//! written for that framework (givre's FROST, cggmp24's threshold ECDSA, or your own) runs
//! unchanged over alibi's channels.
//!
//! * A message to `AllParties` is a [`Net::broadcast`] (the group channel, or n-1 pairwise
//!   messages, as the transport's mode says; reliable when the [`Net`] is), a message to
//!   `OneParty(j)` a [`Net::send`] over the pairwise channel.
//! * The framework numbers the participants 0..n; here they are the [`Net`]'s participants in
//!   index order: framework index j is `net.participants()[j]` ([`Net::position`]).
//! * The round of a message is its [`round_based::ProtocolMessage::round`]; the bytes are its
//!   postcard encoding.
//! * A message that does not decode ends the run, naming its sender
//!   ([`Fault::Malformed`]); every other failure is the [`Net`]'s. Frameworks keep only an
//!   error's text: the typed error stays in [`Net::failure`].

use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use futures_util::{Sink, Stream};
use round_based::{Incoming, MessageDestination, MessageType, Outgoing, ProtocolMessage};
use serde::{de::DeserializeOwned, Serialize};

use crate::net::{Kind, Net};
use crate::transport::Transport;
use crate::{Blame, Error, Fault, PartyIndex, Result};

/// What the protocol reads: the others' messages, decoded.
pub type Incomings<M> = Pin<Box<dyn Stream<Item = Result<Incoming<M>>> + Send>>;

/// Where the protocol writes its messages.
pub type Outgoings<M> = Pin<Box<dyn Sink<Outgoing<M>, Error = Error> + Send>>;

/// A protocol's delivery over a [`Net`] (a pair the framework accepts as a
/// [`round_based::Delivery`]): `MpcParty::connected(delivery(&net))`.
pub fn delivery<T, M>(net: &Net<T>) -> (Incomings<M>, Outgoings<M>)
where
    T: Transport + 'static,
    M: ProtocolMessage + Serialize + DeserializeOwned + Send + 'static,
{
    delivery_from(net, 0)
}

/// How many rounds one protocol of several on one net may use ([`delivery_from`]).
pub const ROUNDS_PER_PROTOCOL: u16 = 0x100;

/// [`delivery`] for the `k`-th of several protocols run one after another on one net (key
/// generation, then auxiliary information): its rounds are `k * ROUNDS_PER_PROTOCOL +
/// round`, and it hears only its own. `k` is below 63: the last rounds below
/// [`crate::net::MAX_ROUND`] are [`Net::conclude`]'s.
pub fn delivery_from<T, M>(net: &Net<T>, k: u16) -> (Incomings<M>, Outgoings<M>)
where
    T: Transport + 'static,
    M: ProtocolMessage + Serialize + DeserializeOwned + Send + 'static,
{
    let first = k.saturating_mul(ROUNDS_PER_PROTOCOL);
    let ids = Arc::new(AtomicU64::new(0));
    let incoming = futures_util::stream::unfold(net.clone(), move |net| {
        let ids = ids.clone();
        async move {
            let next = receive::<T, M>(&net, &ids, first).await;
            if let Err(e) = &next {
                net.note_failure(e);
            }
            Some((next, net))
        }
    });
    let outgoing =
        futures_util::sink::unfold(net.clone(), move |net, out: Outgoing<M>| async move {
            if let Err(e) = send(&net, out, first).await {
                net.note_failure(&e);
                return Err(e);
            }
            Ok::<_, Error>(net)
        });
    (Box::pin(incoming), Box::pin(outgoing))
}

/// The next message, decoded, with its sender as the framework numbers it.
async fn receive<T: Transport, M: DeserializeOwned>(
    net: &Net<T>,
    ids: &AtomicU64,
    first: u16,
) -> Result<Incoming<M>> {
    let m = net
        .recv_in(first..first.saturating_add(ROUNDS_PER_PROTOCOL))
        .await?;
    let Some(sender) = net.position(m.sender) else {
        return Err(Error::Transport(format!(
            "party {} is not a participant",
            m.sender
        )));
    };
    let msg = crate::decode::<M>(&m.bytes).map_err(|_| Error::Aborted {
        reason: format!("party {} sent a message that does not decode", m.sender),
        blamed: vec![Blame {
            party: m.sender,
            fault: Fault::Malformed { round: m.round },
        }],
    })?;
    Ok(Incoming {
        id: ids.fetch_add(1, Ordering::Relaxed),
        sender,
        msg_type: match m.kind {
            Kind::Broadcast => MessageType::Broadcast,
            Kind::P2p => MessageType::P2P,
        },
        msg,
    })
}

/// Sends one of the protocol's messages.
async fn send<T: Transport, M: ProtocolMessage + Serialize>(
    net: &Net<T>,
    out: Outgoing<M>,
    first: u16,
) -> Result<()> {
    if out.msg.round() >= ROUNDS_PER_PROTOCOL {
        return Err(Error::Parameters(format!(
            "round {} is past the {ROUNDS_PER_PROTOCOL} rounds a protocol may use",
            out.msg.round()
        )));
    }
    let round = first + out.msg.round();
    if round >= crate::net::ROUND_CONFIRM {
        return Err(Error::Parameters(format!(
            "round {round} is one of the rounds Net::conclude keeps"
        )));
    }
    let bytes = crate::encode(&out.msg);
    match out.recipient {
        MessageDestination::AllParties => net.broadcast(round, bytes).await,
        MessageDestination::OneParty(j) => {
            let to: PartyIndex = net
                .participants()
                .get(usize::from(j))
                .copied()
                .ok_or_else(|| Error::Parameters(format!("no participant at position {j}")))?;
            net.send(round, to, bytes).await
        }
    }
}
