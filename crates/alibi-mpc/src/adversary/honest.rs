//! The hooks of an honest party: each leaves the protocol as it is.

use ff::Field;

use crate::curve::DkgCurve;
use crate::dkg::KeygenConfig;
use crate::echo::Run;
use crate::sign::{Binding, SignConfig};
use crate::transport::{Broadcast, Transport};
use crate::{Error, PartyIndex};

/// What a party does besides the protocol: nothing.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Hooks {
    _nothing: (),
}

pub(crate) fn keygen_hooks<C: DkgCurve>(_: &KeygenConfig<C>) -> Hooks {
    Hooks::default()
}

pub(crate) fn sign_hooks(_: &SignConfig) -> Hooks {
    Hooks::default()
}

pub(crate) async fn stop_falsely<T: Transport, R: rand_core::CryptoRng + ?Sized>(
    _: &mut Run<'_, T, R>,
) -> Option<Error> {
    None
}

pub(crate) fn shape<T: Transport, R: rand_core::CryptoRng + ?Sized>(
    _: &mut Run<'_, T, R>,
    _: u16,
    _: &[u8],
    _: &[PartyIndex],
    wire: Vec<u8>,
) -> Broadcast {
    Broadcast::All(wire)
}

pub(crate) fn garble(_: &Hooks, _: u16, body: Vec<u8>) -> Vec<u8> {
    body
}

pub(crate) fn commitment<C: DkgCurve>(_: &Hooks, _: &mut [Vec<u8>]) {}

pub(crate) fn equivocate_commit(_: &mut Hooks, _: &[u8; 32]) {}

pub(crate) fn deals_to(_: &Hooks, _: PartyIndex) -> bool {
    true
}

pub(crate) fn share_for<S: Field>(_: &Hooks, _: PartyIndex, value: S) -> S {
    value
}

pub(crate) fn constant<S: Field>(_: &Hooks, a0: S) -> S {
    a0
}

pub(crate) fn silent_after_dealing(_: &Hooks) -> Option<Error> {
    None
}

pub(crate) async fn send_secret_version<T: Transport, R: rand_core::CryptoRng + ?Sized>(
    _: &mut Run<'_, T, R>,
) {
}

pub(crate) fn proven_share<S: Field>(_: &Hooks, x: S) -> S {
    x
}

pub(crate) async fn before_confirm<T: Transport, R: rand_core::CryptoRng + ?Sized>(
    _: &mut Run<'_, T, R>,
    _: &mut [u8; 32],
) {
}

pub(crate) fn confirms_early(_: &Hooks) -> bool {
    true
}

pub(crate) fn proves_own_key(_: &Hooks) -> bool {
    true
}

pub(crate) fn partial_key(_: &Hooks, key: [u8; 32]) -> crate::Result<[u8; 32]> {
    Ok(key)
}

pub(crate) fn equivocate_partial(_: &mut Hooks, _: &[u8], _: &Binding) -> crate::Result<()> {
    Ok(())
}
