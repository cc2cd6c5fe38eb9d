//! A transport whose type is erased, for [`crate::endpoint::Endpoint`]: the protocols run on
//! [`Erased`] alone, so they are compiled once, in this crate, rather than again in every crate,
//! test and example for every transport it uses (release builds share no generic code between
//! crates, and the protocols are most of this crate). A send costs one more boxed future, which
//! is nothing beside a message's cryptography and network time.

use std::any::Any;

use async_trait::async_trait;

use crate::transport::{Mailbox, Outgoing, Packet, Transport, Waiting};
use crate::{PartyIndex, Result, SessionId};

/// A [`Transport`] that can be given back as its own type (and shared between the threads of
/// a run's tasks, as the runs' futures are).
trait AnyTransport: Transport + Sync + Any {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

impl<T: Transport + Sync + 'static> AnyTransport for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

/// Any transport, behind one type.
pub(crate) struct Erased(Box<dyn AnyTransport>);

impl Erased {
    /// `transport`, its type erased.
    pub(crate) fn new<T: Transport + Sync + 'static>(transport: T) -> Self {
        Erased(Box::new(transport))
    }

    /// The transport, if it is a `T`.
    pub(crate) fn get<T: Transport + 'static>(&self) -> Option<&T> {
        self.0.as_any().downcast_ref()
    }

    /// The transport to change, if it is a `T`.
    pub(crate) fn get_mut<T: Transport + 'static>(&mut self) -> Option<&mut T> {
        self.0.as_any_mut().downcast_mut()
    }

    /// The transport back, if it is a `T`.
    pub(crate) fn into_inner<T: Transport + 'static>(self) -> Option<T> {
        self.0.into_any().downcast().ok().map(|t| *t)
    }
}

#[async_trait]
impl Transport for Erased {
    fn me(&self) -> PartyIndex {
        self.0.me()
    }

    fn mailbox(&self) -> &Mailbox {
        self.0.mailbox()
    }

    async fn send(&mut self, out: Outgoing) -> Result<()> {
        self.0.send(out).await
    }

    async fn send_packet(
        &mut self,
        session: SessionId,
        round: u16,
        to: PartyIndex,
        packet: Packet,
    ) -> Result<()> {
        self.0.send_packet(session, round, to, packet).await
    }

    async fn send_each(
        &mut self,
        session: SessionId,
        round: u16,
        to: &[PartyIndex],
        packet: Packet,
    ) {
        self.0.send_each(session, round, to, packet).await
    }

    fn waiting(&mut self, w: &Waiting) {
        self.0.waiting(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::MemoryTransport;

    /// The transport comes back as the type it went in as, and as no other.
    #[test]
    fn the_transport_comes_back_as_its_own_type() {
        let ps = crate::test_parties(2);
        let t = MemoryTransport::network(&ps[0].roster).remove(0);
        let mut e = Erased::new(t);
        assert_eq!(e.me(), 1);
        assert!(e.get::<MemoryTransport>().is_some());
        assert!(e.get_mut::<MemoryTransport>().is_some());
        assert!(e.get::<Erased>().is_none());
        let back: MemoryTransport = e.into_inner().expect("its own type");
        assert_eq!(back.me(), 1);
        let e = Erased::new(back);
        assert!(e.into_inner::<Erased>().is_none());
    }
}
