//! [`watched`]: a party whose delivery reports its own failure, so that a failed run is told
//! apart as a transport fault or a protocol abort by what happened, not by an error's text.

use std::error::Error as StdError;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_util::{Sink, Stream};
use round_based::{Delivery, Mpc, MpcParty};

use crate::{blame, Error};

/// Whether a watched delivery failed: shared by the delivery's two halves and the caller.
#[derive(Clone, Debug, Default)]
pub struct Watch(Arc<AtomicBool>);

/// A delivery that records in its [`Watch`] any send error, any receive error and the end of
/// its incoming stream, and passes everything on unchanged.
#[derive(Debug)]
pub struct Watched<D> {
    inner: D,
    watch: Watch,
}

/// `party` with its delivery watched, and the watch to ask after the run.
#[allow(clippy::type_complexity)]
pub fn watched<P: Mpc>(
    party: P,
) -> (
    MpcParty<P::ProtocolMessage, Watched<P::Delivery>, P::Runtime>,
    Watch,
) {
    let watch = Watch::default();
    let party = party.into_party().map_delivery(|inner| Watched {
        inner,
        watch: watch.clone(),
    });
    (party, watch)
}

impl Watch {
    /// Whether the delivery failed or its incoming stream ended.
    pub fn failed(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    fn fail(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// The run's failure `err` as the contract types it: [`Error::Transport`] when the delivery
    /// failed (the protocol stops at its first failure, so that was the cause), else
    /// [`Error::Aborted`] with the positions the protocol blamed. Neither library's errors hold
    /// secret values.
    pub fn failure(&self, err: &(dyn StdError + 'static)) -> Error {
        let mut reason = String::new();
        let mut cur = Some(err);
        while let Some(e) = cur {
            if !reason.is_empty() {
                reason.push_str(": ");
            }
            reason.push_str(&e.to_string());
            cur = e.source();
        }
        if self.failed() {
            Error::Transport(reason)
        } else {
            let blamed = blame::positions(&format!("{err:?}"));
            Error::Aborted { reason, blamed }
        }
    }
}

impl<M, D: Delivery<M>> Delivery<M> for Watched<D> {
    type Send = Watched<D::Send>;
    type Receive = Watched<D::Receive>;
    type SendError = D::SendError;
    type ReceiveError = D::ReceiveError;

    fn split(self) -> (Self::Receive, Self::Send) {
        let (receive, send) = self.inner.split();
        let watch = self.watch;
        (
            Watched {
                inner: receive,
                watch: watch.clone(),
            },
            Watched { inner: send, watch },
        )
    }
}

impl<T, E, S> Stream for Watched<S>
where
    S: Stream<Item = Result<T, E>> + Unpin,
{
    type Item = Result<T, E>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let next = Pin::new(&mut self.inner).poll_next(cx);
        if let Poll::Ready(None | Some(Err(_))) = &next {
            self.watch.fail();
        }
        next
    }
}

impl<I, S: Sink<I> + Unpin> Sink<I> for Watched<S> {
    type Error = S::Error;

    fn poll_ready(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        let r = Pin::new(&mut self.inner).poll_ready(cx);
        self.noted(r)
    }

    fn start_send(mut self: Pin<&mut Self>, item: I) -> Result<(), S::Error> {
        let r = Pin::new(&mut self.inner).start_send(item);
        if r.is_err() {
            self.watch.fail();
        }
        r
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        let r = Pin::new(&mut self.inner).poll_flush(cx);
        self.noted(r)
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        let r = Pin::new(&mut self.inner).poll_close(cx);
        self.noted(r)
    }
}

impl<S> Watched<S> {
    fn noted<E>(&self, r: Poll<Result<(), E>>) -> Poll<Result<(), E>> {
        if let Poll::Ready(Err(_)) = &r {
            self.watch.fail();
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::{SinkExt, StreamExt};
    use round_based::{Incoming, MessageType, Outgoing};

    #[derive(Debug, thiserror::Error)]
    #[error("link down")]
    struct Down;

    fn incoming(msg: u8) -> Result<Incoming<u8>, Down> {
        Ok(Incoming {
            id: 0,
            sender: 1,
            msg_type: MessageType::Broadcast,
            msg,
        })
    }

    #[tokio::test]
    async fn a_delivery_that_ends_or_fails_is_noted() {
        {
            // Two messages then the end: noted only at the end.
            let stream = futures_util::stream::iter([incoming(1), incoming(2)]);
            let sink = futures_util::sink::drain().sink_map_err(|_| Down);
            let (party, watch) = watched(MpcParty::connected((stream, sink)));
            let (mut receive, mut send) = Delivery::split(party.delivery);
            send.send(Outgoing::broadcast(7u8)).await.expect("sent");
            receive.next().await;
            receive.next().await;
            assert!(!watch.failed());
            assert!(receive.next().await.is_none());
            assert!(watch.failed());
            assert!(matches!(watch.failure(&Down), Error::Transport(_)));
        }
    }

    #[tokio::test]
    async fn a_send_error_is_noted_and_an_abort_is_not() {
        {
            let stream = futures_util::stream::pending::<Result<Incoming<u8>, Down>>();
            let sink = Box::pin(futures_util::sink::unfold(
                (),
                |(), _: Outgoing<u8>| async { Err::<(), _>(Down) },
            ));
            let (party, watch) = watched(MpcParty::connected((stream, sink)));
            let e = watch.failure(&Down);
            assert_eq!(
                e,
                Error::Aborted {
                    reason: "link down".into(),
                    blamed: vec![]
                }
            );
            let (_receive, mut send) = Delivery::split(party.delivery);
            assert!(send.send(Outgoing::broadcast(7u8)).await.is_err());
            assert!(watch.failed());
        }
    }
}
